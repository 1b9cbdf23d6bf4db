/** Virtual time as a UTC date and time with milliseconds: "2026-01-01 00:00:05.123". */
export function formatVirtualTime(nowUs: number): string {
  const iso = new Date(Math.floor(nowUs / 1000)).toISOString();
  return iso.slice(0, 10) + ' ' + iso.slice(11, 23);
}

/** Time since the world began: "00:01:05.123", with days in front when there are some ("2d 03:00:00.000"). */
export function formatElapsed(us: number): string {
  const totalMs = Math.max(0, Math.floor(us / 1000));
  const ms = totalMs % 1000;
  const s = Math.floor(totalMs / 1000) % 60;
  const m = Math.floor(totalMs / 60_000) % 60;
  const h = Math.floor(totalMs / 3_600_000) % 24;
  const d = Math.floor(totalMs / 86_400_000);
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${d > 0 ? `${d}d ` : ''}${two(h)}:${two(m)}:${two(s)}.${String(ms).padStart(3, '0')}`;
}

/** The speeds the slider offers, from a tenth of real time to a hundred times it. */
export const SPEEDS: readonly number[] = [0.1, 0.25, 0.5, 1, 2, 5, 10, 25, 50, 100];

/** The slider's position for a speed: the nearest offered one. */
export function speedIndex(speed: number): number {
  let best = 0;
  for (let i = 1; i < SPEEDS.length; i++) if (Math.abs(Math.log(SPEEDS[i]! / speed)) < Math.abs(Math.log(SPEEDS[best]! / speed))) best = i;
  return best;
}

export function formatSpeed(speed: number): string {
  return `${speed}×`;
}

/** The steps the Step button offers, in ms of virtual time. */
export const STEPS_MS: readonly number[] = [1, 10, 100, 1000, 10_000];

export function formatStep(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${ms / 1000} s`;
}
