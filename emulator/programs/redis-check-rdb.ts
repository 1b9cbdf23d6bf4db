import type { FileSystem } from '../sim/disk-api.js';
import { checkRdb } from '../persistence/check/rdb/check.js';
import { serverLogLine } from '../server/log-line.js';
import { openToolFile } from './tool-files.js';

/**
 * redis-check-rdb 7.0.15: checks an RDB file the way the server would load
 * it, with deep checks of every value, and prints what it read, with
 * offsets, then its verdict.
 *
 *   const code = runRedisCheckRdb(disk, '/var/lib/redis', ['redis-check-rdb', 'dump.rdb'], print, { nowMs });
 *   // [offset 0] Checking RDB file dump.rdb
 *   // [offset 27] AUX FIELD redis-ver = '7.0.15'
 *   // ...
 *   // [offset 221] Checksum OK
 *   // [offset 221] \o/ RDB looks OK! \o/
 *   // [info] 9 keys read
 *
 * `argv[0]` is the program name as typed; it appears in the usage text.
 * Returns the exit code.
 */

export interface CheckToolOptions {
  /** The process id, printed in the lines that come from the server's log. */
  pid?: number;
  /** The wall-clock time (ms): expiry times before it count as already expired, and log lines show it. */
  nowMs?: number;
  /** Standard error; what the tool writes there goes to `out` when absent. */
  err?: (text: string) => void;
}

export const REDIS_CHECK_VERSION = '7.0.15';

export function runRedisCheckRdb(fs: FileSystem, cwd: string, argv: string[], out: (text: string) => void, opts: CheckToolOptions = {}): number {
  const err = opts.err ?? out;
  if (argv.length !== 2) {
    err(`Usage: ${argv[0] ?? '(null)'} <rdb-file-name>\n`);
    return 1;
  }
  const name = argv[1]!;
  if (name === '-v' || name === '--version') {
    out(`redis-check-rdb ${REDIS_CHECK_VERSION}\n`);
    return 0;
  }
  const file = openToolFile(fs, cwd, name);
  if (file.kind === 'error') {
    // The tool announces the file, then fails to open it without a word.
    out(`[offset 0] Checking RDB file ${name}\n`);
    return 1;
  }
  const nowMs = opts.nowMs ?? 0;
  const bytes = file.kind === 'file' ? file.bytes : new Uint8Array(0);
  const r = checkRdb(bytes, name, {
    out,
    logWarning: (text) => out(serverLogLine(opts.pid ?? 1, nowMs, 'warning', text)),
    nowMs,
  });
  return r.outcome === 'ok' ? 0 : 1;
}
