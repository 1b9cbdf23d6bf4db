/**
 * LFU access data (src/evict.c).
 *
 * Under an LFU policy a key's access data holds, in 24 bits, the time of
 * the last decrement in minutes (16 bits) and a logarithmic access counter
 * (8 bits). The counter decays by one every lfu-decay-time minutes and grows
 * with probability 1 / ((counter - 5) * lfu-log-factor + 1) on each access.
 */

/** The counter a new value starts with, so that it is not evicted at once (LFU_INIT_VAL). */
export const LFU_INIT_VAL = 5;

/** What the LFU arithmetic needs from the server. */
interface LfuHost {
  readonly nowMs: number;
  readonly config: { getNumber(name: string): number };
  readonly random: { nextFloat(): number };
}

/** Minutes of Unix time, 16 bits (LFUGetTimeInMinutes). */
function lfuMinutes(host: LfuHost): number {
  return Math.floor(host.nowMs / 60000) & 0xffff;
}

/** The counter after the decay owed since its last update (LFUDecrAndReturn). */
export function lfuCounter(host: LfuHost, data: number): number {
  const last = data >>> 8;
  const counter = data & 0xff;
  const decayMinutes = host.config.getNumber('lfu-decay-time');
  if (decayMinutes === 0) return counter;
  const now = lfuMinutes(host);
  const elapsed = now >= last ? now - last : 0xffff - last + now;
  const periods = Math.floor(elapsed / decayMinutes);
  return periods > counter ? 0 : counter - periods;
}

/**
 * The access data to store for a key read or written now (updateLFU), or
 * for a new value when `previous` is undefined.
 */
export function lfuAccess(host: LfuHost, previous: number | undefined): number {
  if (previous === undefined) return (lfuMinutes(host) << 8) | LFU_INIT_VAL;
  let counter = lfuCounter(host, previous);
  if (counter < 255) {
    const base = Math.max(0, counter - LFU_INIT_VAL);
    const p = 1 / (base * host.config.getNumber('lfu-log-factor') + 1);
    if (host.random.nextFloat() < p) counter++;
  }
  return (lfuMinutes(host) << 8) | counter;
}
