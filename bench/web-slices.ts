/**
 * The disk view's reader over big files, in this process: what one slice
 * of its scan costs in CPU time when the page asks for 8 ms slices. The
 * tests check that the scan is split and complete; the milliseconds are
 * printed here.
 */
import { AofEntryReader, RdbRecordReader, type AofEntry, type AofReaderState, type RdbReaderState, type RdbRecord } from '../emulator/persistence/inspect/index.js';
import { AofSummary, RdbSummary } from '../src/web/disk/file-summaries.js';
import { RecordPager } from '../src/web/disk/record-pager.js';
import { millionKeyRdb } from '../tests/support/big-files.js';

const SLICE_MS = 8;

const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

function scanCosts(pager: { scan(more: () => boolean): boolean }): number[] {
  const costs: number[] = [];
  for (;;) {
    const spent = cpuMs();
    const deadline = performance.now() + SLICE_MS;
    const done = pager.scan(() => performance.now() < deadline);
    costs.push(cpuMs() - spent);
    if (done) return costs;
  }
}

function hundredMegabyteAof(): Uint8Array {
  const one = (i: number) => `*3\r\n$3\r\nSET\r\n$11\r\nkey:${String(i).padStart(7, '0')}\r\n$40\r\n${'v'.repeat(40)}\r\n`;
  const n = 1_400_000;
  const size = one(0).length;
  const bytes = new Uint8Array(n * size);
  for (let i = 0; i < n; i++) {
    const c = one(i);
    for (let j = 0; j < size; j++) bytes[i * size + j] = c.charCodeAt(j);
  }
  return bytes;
}

export function sliceCosts(): Array<{ name: string; costs: number[]; reference: number }> {
  const rdb = millionKeyRdb();
  const rdbSummary = new RdbSummary();
  const rdbPager = new RecordPager((from: RdbReaderState | null) => new RdbRecordReader(rdb, from), 100, (r: RdbRecord) => rdbSummary.add(r));
  const aof = hundredMegabyteAof();
  const aofSummary = new AofSummary(aof.length);
  const aofPager = new RecordPager((from: AofReaderState | null) => new AofEntryReader(aof, from), 100, (e: AofEntry, i: number) => aofSummary.add(e, i));
  return [
    { name: 'disk view, 1,000,000-key dump.rdb', costs: scanCosts(rdbPager), reference: SLICE_MS },
    { name: 'disk view, 100 MB AOF', costs: scanCosts(aofPager), reference: SLICE_MS },
  ];
}
