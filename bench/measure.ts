/** Measurement helpers for the benchmarks. */

export interface Row {
  name: string;
  emulator: number;
  reference: number;
  unit: string;
  referenceName: string;
  /** For "lower is better" figures (memory). */
  lowerIsBetter?: boolean;
  /**
   * The ratio the row must reach: emulator/reference at least this much, or
   * at most this much when lower is better.
   */
  goal?: number;
  /** An absolute goal for the emulator's figure instead (a time: at most this much). */
  goalValue?: number;
  /** Where the emulator's time goes, for a row short of its goal (bench/where.ts). */
  where?: string;
}

/**
 * Runs awaited operations for about `ms` milliseconds of the process's CPU
 * time (checking every 256 operations) and returns operations per CPU
 * second. The loop never waits, so on an idle machine this is its wall
 * rate; on a shared one, time the process spent descheduled is not counted
 * against whichever side happened to run then.
 */
export async function timeIt(ms: number, op: (i: number) => Promise<unknown>): Promise<number> {
  const start = process.cpuUsage();
  const budgetUs = ms * 1000;
  let n = 0;
  let usedUs: number;
  for (;;) {
    for (let k = 0; k < 256; k++) await op(n++);
    const used = process.cpuUsage(start);
    usedUs = used.user + used.system;
    if (usedUs >= budgetUs) break;
  }
  return (n / usedUs) * 1e6;
}

function fmt(n: number, unit: string): string {
  if (unit === 'bytes') return `${(n / 1024 / 1024).toFixed(1)} MB`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(2)}M ${unit}`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)}k ${unit}`;
  return `${n.toFixed(0)} ${unit}`;
}

/**
 * Where the row stands against its goal: "met", "SHORT by 23%" (how much
 * faster or smaller the emulator must get to reach it), or "" with no goal.
 */
export function verdict(r: Row): string {
  const ratio = r.emulator / r.reference;
  if (r.goalValue !== undefined) {
    const shortBy = r.emulator / r.goalValue - 1;
    return `goal <= ${fmt(r.goalValue, r.unit)}: ${shortBy <= 0 ? 'met' : `SHORT, ${(shortBy * 100).toFixed(0)}% over`}`;
  }
  if (r.goal === undefined) return '';
  if (r.lowerIsBetter) {
    const over = ratio / r.goal - 1;
    return `goal <= ${r.goal}x: ${over <= 0 ? 'met' : `SHORT, ${(over * 100).toFixed(0)}% over`}`;
  }
  const missing = r.goal / ratio - 1;
  return `goal >= ${r.goal}x: ${missing <= 0 ? 'met' : `SHORT, needs ${(missing * 100).toFixed(0)}% more`}`;
}

/** Prints rows as a table with the ratio emulator/reference and where each stands against its goal. */
export function printRows(title: string, rows: Row[]): void {
  console.log(`\n${title}`);
  const w = Math.max(...rows.map((r) => r.name.length), 10);
  for (const r of rows) {
    const ratio = r.emulator / r.reference;
    const label = r.lowerIsBetter ? `${ratio.toFixed(2)}x the reference` : `${ratio.toFixed(2)}x`;
    console.log(
      `  ${r.name.padEnd(w)}  emulator ${fmt(r.emulator, r.unit).padStart(14)}   ${r.referenceName} ${fmt(r.reference, r.unit).padStart(14)}   ratio ${label.padEnd(20)} ${verdict(r)}`.trimEnd(),
    );
    if (r.where) console.log(`      where the emulator's time goes (CPU profile, self time of the busy samples): ${r.where}`);
  }
}
