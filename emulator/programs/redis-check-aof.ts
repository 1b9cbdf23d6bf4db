import { CFile, strtol } from '../persistence/aof/c-stdio.js';
import { isManifestError, manifestErrorLog, parseManifest } from '../persistence/aof/manifest.js';
import { bytesFromArray } from '../resp/bytes.js';
import type { FileSystem } from '../sim/disk-api.js';
import { DiskError } from '../sim/disk-errors.js';
import { CRASH_EXIT_CODE, OutOfMemory, outOfMemoryReport, type CrashFrames } from '../persistence/check/aof/crash-report.js';
import { RespScan } from '../persistence/check/aof/resp-scan.js';
import { checkRdb } from '../persistence/check/rdb/check.js';
import type { CheckState } from '../persistence/check/rdb/report.js';
import type { CheckToolOptions } from './redis-check-rdb.js';
import { serverLogLine } from '../server/log-line.js';
import { openToolFile, resolveToolPath } from './tool-files.js';

/**
 * redis-check-aof 7.0.15: checks an AOF, a single file (with or without an
 * RDB preamble) or every file a multi-part manifest names, and with --fix
 * truncates the last file after its last whole command.
 *
 *   runRedisCheckAof(disk, '/var/lib/redis/appendonlydir', ['redis-check-aof', '--fix', 'appendonly.aof.manifest'], print);
 *   // Start checking Multi Part AOF
 *   // ...
 *   // AOF analyzed: filename=appendonly.aof.1.incr.aof, size=78, ok_up_to=52, ok_up_to_line=19, diff=26
 *   // This will shrink the AOF appendonly.aof.1.incr.aof from 78 bytes, with 26 bytes, to 52 bytes
 *   // Continue? [y/N]: Successfully truncated AOF appendonly.aof.1.incr.aof
 *   // All AOF files and manifest are valid
 *
 * `argv[0]` is the program name as typed. Returns the exit code.
 */

export interface CheckAofOptions extends CheckToolOptions {
  /**
   * What the user types at "Continue? [y/N]: " (the first character
   * decides), or a function asked at that moment; null is end of input,
   * which aborts. Without it the answer is "y".
   */
  answer?: string | null | (() => string | null);
}

/** exit(): unwinds to runRedisCheckAof with the code. */
class Exit {
  constructor(readonly code: number) {}
}

type SingleResult = 'ok' | 'empty' | 'truncated' | 'timestamp-truncated';

/** The lines of an annotation are read with this buffer (AOF_ANNOTATION_LINE_MAX_LEN). */
const ANNOTATION_BUFFER = 1024;
/** fileIsManifest reads lines with a buffer of 1024 bytes plus the NUL. */
const MANIFEST_LINE_BUFFER = 1025;

/** glibc's dirname: the path without its last component, "." when there is none. */
function dirname(path: string): string {
  let end = path.length;
  while (end > 1 && path[end - 1] === '/') end--;
  const slash = path.lastIndexOf('/', end - 1);
  if (slash < 0) return '.';
  let cut = slash;
  while (cut > 0 && path[cut - 1] === '/') cut--;
  return cut === 0 ? '/' : path.slice(0, cut);
}

class AofCheck {
  private readonly scan = new RespScan();
  /** --truncate-to-timestamp; 0 when not asked. */
  toTimestamp = 0n;
  /** Where the check is, for the stack of a crash report. */
  frames: CrashFrames = 'old-style';
  /** The state of the RDB check, once one has run: a later crash report then includes it. */
  rdbState: CheckState | null = null;

  constructor(
    private readonly fs: FileSystem,
    private readonly cwd: string,
    private readonly out: (text: string) => void,
    private readonly opts: CheckAofOptions,
  ) {}

  private exit(code: number): never {
    throw new Exit(code);
  }

  private log(text: string): void {
    this.out(serverLogLine(this.opts.pid ?? 1, this.opts.nowMs ?? 0, 'warning', text));
  }

  private answer(): string | null {
    const a = this.opts.answer;
    if (a === undefined) return 'y';
    return typeof a === 'function' ? a() : a;
  }

  private truncate(path: string, length: number): boolean {
    try {
      this.fs.truncate(resolveToolPath(this.cwd, path), length);
      return true;
    } catch (e) {
      if (e instanceof DiskError) return false;
      throw e;
    }
  }

  /**
   * fopen(path, "r") of the type checks: a missing file is fatal, and a
   * directory opens but cannot be read.
   */
  private readForTypeCheck(path: string): Uint8Array {
    const f = openToolFile(this.fs, this.cwd, path);
    if (f.kind === 'error') {
      this.out(`Cannot open file ${path}: ${f.message}\n`);
      this.exit(1);
    }
    if (f.kind === 'dir') {
      this.out(`Cannot read file: ${path}\n`);
      this.exit(1);
    }
    return f.bytes;
  }

  fileIsManifest(path: string): boolean {
    const bytes = this.readForTypeCheck(path);
    const f = new CFile(bytes);
    let manifest = false;
    for (;;) {
      const chunk = f.fgets(MANIFEST_LINE_BUFFER);
      if (chunk === null) break;
      if (chunk[0] === 0x23) continue;
      if (chunk.length >= 4 && chunk[0] === 0x66 && chunk[1] === 0x69 && chunk[2] === 0x6c && chunk[3] === 0x65) manifest = true;
    }
    return manifest;
  }

  /** fileIsRDB: at least 8 bytes, starting with "REDIS". */
  fileIsRdb(path: string): boolean {
    const b = this.readForTypeCheck(path);
    return b.length >= 8 && bytesFromArray(b, 0, 5) === 'REDIS';
  }

  /** processAnnotations: false when the file was cut at a timestamp past --truncate-to-timestamp. */
  private annotation(f: CFile, path: string, lastFile: boolean): boolean {
    const epos = f.tell();
    this.scan.epos = epos;
    const line = f.fgets(ANNOTATION_BUFFER)!;
    if (this.toTimestamp === 0n || bytesFromArray(line, 0, Math.min(4, line.length)) !== '#TS:') return true;
    const nul = line.indexOf(0);
    const text = nul < 0 ? line : line.subarray(0, nul);
    const ts = strtol(text, 4);
    const endChar = ts.end < text.length ? text[ts.end] : 0;
    if (ts.overflow || endChar !== 0x0d) {
      this.out('Invalid timestamp annotation\n');
      this.exit(1);
    }
    if (ts.value <= this.toTimestamp) return true;
    if (epos === 0) {
      this.out(`AOF ${path} has nothing before timestamp ${this.toTimestamp}, aborting...\n`);
      this.exit(1);
    }
    if (!lastFile) {
      this.out(`Failed to truncate AOF ${path} to timestamp ${this.toTimestamp} to offset ${epos} because it is not the last file.\n`);
      this.out(
        'If you insist, please delete all files after this file according to the manifest file and delete the corresponding records in manifest file manually. Then re-run redis-check-aof.\n',
      );
      this.exit(1);
    }
    if (!this.truncate(path, epos)) {
      this.out(`Failed to truncate AOF ${path} to timestamp ${this.toTimestamp}\n`);
      this.exit(1);
    }
    return false;
  }

  /** checkSingleAof. `name` is what the messages call the file, `path` where it is. */
  single(name: string, path: string, lastFile: boolean, fix: boolean, preamble: boolean): SingleResult {
    const opened = openToolFile(this.fs, this.cwd, path);
    if (opened.kind !== 'file') {
      this.out(`Cannot open file ${path}: ${opened.kind === 'dir' ? 'Is a directory' : opened.message}, aborting...\n`);
      this.exit(1);
    }
    const size = opened.bytes.length;
    if (size === 0) return 'empty';
    const f = new CFile(opened.bytes);

    if (preamble) {
      const r = checkRdb(opened.bytes, name, {
        out: this.out,
        logWarning: (text) => this.log(text),
        nowMs: this.opts.nowMs ?? 0,
      });
      this.rdbState = r.state;
      if (r.outcome === 'exit') this.exit(1);
      if (r.outcome === 'error') {
        this.out('RDB preamble of AOF file is not sane, aborting.\n');
        this.exit(1);
      }
      this.out('RDB preamble is OK, proceeding with AOF tail...\n');
      f.seek(r.end);
    }

    const scan = this.scan;
    const multi = { depth: 0 };
    let pos = 0;
    for (;;) {
      if (multi.depth === 0) pos = f.tell();
      const c = f.fgets(2);
      if (c === null) break;
      f.seek(f.tell() - 1);
      if (c[0] === 0x23) {
        if (!this.annotation(f, path, lastFile)) return 'timestamp-truncated';
      } else if (c[0] === 0x2a) {
        if (!scan.command(f, path, multi)) break;
      } else {
        this.out(`AOF ${name} format error\n`);
        break;
      }
    }
    if (f.eof && multi.depth !== 0 && scan.error === '') scan.setError('Reached EOF before reading EXEC for MULTI');
    if (scan.error !== '') this.out(`${scan.error}\n`);

    const diff = size - pos;
    if (diff === 0 && this.toTimestamp !== 0n) {
      this.out(`Truncate nothing in AOF ${name} to timestamp ${this.toTimestamp}\n`);
      return 'ok';
    }
    this.out(`AOF analyzed: filename=${name}, size=${size}, ok_up_to=${pos}, ok_up_to_line=${scan.line}, diff=${diff}\n`);
    if (diff > 0) {
      if (!fix) {
        this.out(`AOF ${name} is not valid. Use the --fix option to try fixing it.\n`);
        this.exit(1);
      }
      if (!lastFile) {
        this.out(`Failed to truncate AOF ${name} because it is not the last file\n`);
        this.exit(1);
      }
      this.out(`This will shrink the AOF ${name} from ${size} bytes, with ${diff} bytes, to ${pos} bytes\n`);
      this.out('Continue? [y/N]: ');
      const a = this.answer();
      if (a === null || a.length === 0 || (a[0] !== 'y' && a[0] !== 'Y')) {
        this.out('Aborting...\n');
        this.exit(1);
      }
      if (!this.truncate(path, pos)) {
        this.out(`Failed to truncate AOF ${name}\n`);
        this.exit(1);
      }
      return 'truncated';
    }
    return 'ok';
  }

  private verdict(prefix: string, name: string, r: SingleResult): void {
    if (r === 'ok') this.out(`${prefix}${name} is valid\n`);
    else if (r === 'empty') this.out(`${prefix}${name} is empty\n`);
    else if (r === 'timestamp-truncated') this.out(`Successfully truncated AOF ${name} to timestamp ${this.toTimestamp}\n`);
    else this.out(`Successfully truncated AOF ${name}\n`);
  }

  multiPart(dir: string, manifestPath: string, fix: boolean): void {
    this.out('Start checking Multi Part AOF\n');
    const text = bytesFromArray(this.readForTypeCheck(manifestPath));
    const m = parseManifest(text);
    if (isManifestError(m)) {
      for (const line of manifestErrorLog(m)) this.log(line);
      this.exit(1);
    }
    const total = (m.base ? 1 : 0) + m.incr.length;
    let n = 0;
    if (m.base) {
      const name = m.base.name;
      const path = `${dir}/${name}`;
      const last = ++n === total;
      const rdb = this.fileIsRdb(path);
      this.frames = 'multi-part-base';
      this.out(`Start to check BASE AOF (${rdb ? 'RDB' : 'RESP'} format).\n`);
      this.verdict('BASE AOF ', name, this.single(name, path, last, fix, rdb));
    }
    if (m.incr.length > 0) {
      this.out('Start to check INCR files.\n');
      this.frames = 'multi-part-incr';
      for (const info of m.incr) {
        const path = `${dir}/${info.name}`;
        const last = ++n === total;
        this.verdict('INCR AOF ', info.name, this.single(info.name, path, last, fix, false));
      }
    }
    this.out('All AOF files and manifest are valid\n');
  }

  oldStyle(path: string, fix: boolean, preamble: boolean): void {
    this.out('Start checking Old-Style AOF\n');
    this.verdict('AOF ', path, this.single(path, path, true, fix, preamble));
  }
}

export function runRedisCheckAof(fs: FileSystem, cwd: string, argv: string[], out: (text: string) => void, opts: CheckAofOptions = {}): number {
  const check = new AofCheck(fs, cwd, out, opts);
  const usage = (): number => {
    out(`Usage: ${argv[0] ?? '(null)'} [--fix|--truncate-to-timestamp $timestamp] <file.manifest|file.aof>\n`);
    return 1;
  };
  let path: string;
  let fix = false;
  if (argv.length === 2) {
    path = argv[1]!;
  } else if (argv.length === 3) {
    if (argv[1] !== '--fix') return usage();
    path = argv[2]!;
    fix = true;
  } else if (argv.length === 4) {
    if (argv[1] !== '--truncate-to-timestamp') return usage();
    const ts = strtol(argv[2]!);
    if (ts.overflow || ts.end !== argv[2]!.length) {
      out('Invalid timestamp, aborting...\n');
      return 1;
    }
    check.toTimestamp = ts.value;
    path = argv[3]!;
  } else {
    return usage();
  }
  try {
    if (check.fileIsManifest(path)) {
      check.multiPart(dirname(path), path, fix);
    } else if (check.fileIsRdb(path)) {
      check.frames = 'old-style-preamble';
      check.oldStyle(path, fix, true);
    } else {
      check.oldStyle(path, fix, false);
    }
    return 0;
  } catch (e) {
    if (e instanceof Exit) return e.code;
    if (e instanceof OutOfMemory) {
      out(outOfMemoryReport(argv[0] ?? '', opts.pid ?? 1, opts.nowMs ?? 0, e.bytes, check.frames));
      if (check.rdbState === null) return CRASH_EXIT_CODE;
      check.rdbState.error('Server crash checking the specified RDB file!');
      return 1;
    }
    throw e;
  }
}
