import { serverLogLine } from '../../../server/log-line.js';

/**
 * What redis-check-aof prints when a `$<length>` asks for more memory than
 * the process can get (zmalloc's out-of-memory handler): a log line, then
 * the start of Redis's bug report, which crashes the process again while
 * gathering INFO. The addresses of a real report change from run to run;
 * these are placeholders in the same format.
 */

/** The largest allocation the reference machine granted (jemalloc over an overcommitting kernel). */
export const MAX_ALLOCATION_BYTES = 80 * 2 ** 40;

/** Thrown by the scanner; the program turns it into the report. */
export class OutOfMemory {
  constructor(readonly bytes: bigint) {}
}

/** Which functions were on the stack: the caller of checkSingleAof and the call site in redis_check_aof_main. */
export type CrashFrames = 'old-style' | 'old-style-preamble' | 'multi-part-base' | 'multi-part-incr';

const FAKE_BASE = 0x55555555_0000;

export function outOfMemoryReport(program: string, pid: number, nowMs: number, bytes: bigint, frames: CrashFrames): string {
  const log = (text: string) => serverLogLine(pid, nowMs, 'warning', text);
  const caller =
    frames === 'multi-part-base' ? 'checkMultiPartAof+0xc9' : frames === 'multi-part-incr' ? 'checkMultiPartAof+0x1f5' : 'checkOldStyleAof+0x34';
  const mainSite = frames === 'old-style' ? '0x18a' : frames === 'old-style-preamble' ? '0x1ac' : '0x19a';
  const own = [
    'redisOutOfMemoryHandler+0x2a',
    'zmalloc+0x5b',
    'readString+0x6a',
    'processRESP+0x8f',
    'checkSingleAof+0x108',
    caller,
    `redis_check_aof_main+${mainSite}`,
    'main+0x416',
  ];
  let trace = '';
  own.forEach((f, i) => (trace += `${program}(${f})[0x${(FAKE_BASE + 0x1000 * (i + 1)).toString(16)}]\n`));
  trace += '/lib/x86_64-linux-gnu/libc.so.6(+0x2724a)[0x7ffff7c2724a]\n';
  trace += '/lib/x86_64-linux-gnu/libc.so.6(__libc_start_main+0x85)[0x7ffff7c27305]\n';
  trace += `${program}(_start+0x21)[0x${(FAKE_BASE + 0x21).toString(16)}]\n`;
  return (
    log(`Out Of Memory allocating ${bytes} bytes!`) +
    '\n\n=== REDIS BUG REPORT START: Cut & paste starting from here ===\n' +
    log('------------------------------------------------') +
    log('!!! Software Failure. Press left mouse button to continue') +
    log(`Guru Meditation: Redis aborting for OUT OF MEMORY. Allocating ${bytes} bytes! #server.c:6658`) +
    '\n------ STACK TRACE ------\n\nBacktrace:\n' +
    trace +
    '\n------ INFO OUTPUT ------\n'
  );
}

/** The process dies of SIGSEGV inside the report. */
export const CRASH_EXIT_CODE = 139;
