/** Measurement helpers for the benchmarks. */

export interface Row {
  name: string;
  emulator: number;
  reference: number;
  unit: string;
  referenceName: string;
  /** For "lower is better" figures (memory). */
  lowerIsBetter?: boolean;
}

/**
 * Runs awaited operations for about `ms` milliseconds (checking the clock
 * every 256 operations) and returns operations per second.
 */
export async function timeIt(ms: number, op: (i: number) => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  const budget = BigInt(ms) * 1_000_000n;
  let n = 0;
  for (;;) {
    for (let k = 0; k < 256; k++) await op(n++);
    if (process.hrtime.bigint() - start >= budget) break;
  }
  const ns = Number(process.hrtime.bigint() - start);
  return (n / ns) * 1e9;
}

function fmt(n: number, unit: string): string {
  if (unit === 'bytes') return `${(n / 1024 / 1024).toFixed(1)} MB`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(2)}M ${unit}`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)}k ${unit}`;
  return `${n.toFixed(0)} ${unit}`;
}

/** Prints rows as a table with the ratio emulator/reference (or reference/emulator when lower is better). */
export function printRows(title: string, rows: Row[]): void {
  console.log(`\n${title}`);
  const w = Math.max(...rows.map((r) => r.name.length), 10);
  for (const r of rows) {
    const ratio = r.lowerIsBetter ? r.emulator / r.reference : r.emulator / r.reference;
    const label = r.lowerIsBetter ? `${ratio.toFixed(2)}x the reference` : `${ratio.toFixed(2)}x`;
    console.log(
      `  ${r.name.padEnd(w)}  emulator ${fmt(r.emulator, r.unit).padStart(14)}   ${r.referenceName} ${fmt(r.reference, r.unit).padStart(14)}   ratio ${label}`,
    );
  }
}
