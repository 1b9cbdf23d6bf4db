import { repr } from '../../resp/bytes.js';
import { splitArgs } from '../../resp/split-args.js';
import { strtol } from './c-stdio.js';
import { cString } from '../../numbers/c-string.js';

/**
 * The manifest of Redis 7.0's multi-part AOF, `<appenddirname>/<appendfilename>.manifest`
 * (src/aof.c): one line per file, `file <name> seq <n> type <b|h|i>`, the
 * base first, then history files, then the incremental files in order.
 *
 *   const m = parseManifest('file appendonly.aof.1.base.rdb seq 1 type b\n' +
 *                           'file appendonly.aof.1.incr.aof seq 1 type i\n');
 *   // m.base.name === 'appendonly.aof.1.base.rdb', m.incr[0].seq === 1
 *   formatManifest(m);   // the same two lines back
 *
 * Names and the text are byte strings.
 */

/** 'b' base, 'h' history (left over from before a rewrite, deleted soon), 'i' incremental. */
export type AofFileType = 'b' | 'h' | 'i';

export interface AofFileInfo {
  name: string;
  seq: number;
  type: AofFileType;
}

export interface AofManifest {
  base: AofFileInfo | null;
  /** History files, newest first, as a rewrite leaves them. */
  history: AofFileInfo[];
  /** Incremental files in the order they are replayed. */
  incr: AofFileInfo[];
  /** The sequence number of the current base (0 before the first). */
  baseSeq: number;
  /** The sequence number of the newest incremental file (0 before the first). */
  incrSeq: number;
}

export function emptyManifest(): AofManifest {
  return { base: null, history: [], incr: [], baseSeq: 0, incrSeq: 0 };
}

/** Why a manifest was refused, with the line Redis shows for it. */
export interface ManifestError {
  /** The reason as Redis logs it, e.g. "Invalid AOF manifest file format". */
  reason: string;
  /** The line it was reading (1-based) and its trimmed text; absent for errors about the file as a whole. */
  line?: { number: number; text: string };
}

export function isManifestError(m: AofManifest | ManifestError): m is ManifestError {
  return 'reason' in m;
}

/**
 * The warnings Redis logs before exiting on a bad manifest (the end of
 * aofLoadManifestFromFile), one serverLog message each; the newlines
 * inside them are part of the messages.
 */
export function manifestErrorLog(e: ManifestError): string[] {
  const out = ['\n*** FATAL AOF MANIFEST FILE ERROR ***\n'];
  if (e.line) {
    out.push(`Reading the manifest file, at line ${e.line.number}\n`);
    out.push(`>>> '${e.line.text}'\n`);
  }
  out.push(`${e.reason}\n`);
  return out;
}

/** fgets reads the manifest with a buffer of this many bytes plus the NUL. */
const MANIFEST_MAX_LINE = 1024;

const KEY_FILE = 'file';
const KEY_SEQ = 'seq';
const KEY_TYPE = 'type';

/** sdstrim(s, " \t\r\n"). */
function trimManifestLine(s: string): string {
  let a = 0;
  let b = s.length;
  const strip = (c: string) => c === ' ' || c === '\t' || c === '\r' || c === '\n';
  while (a < b && strip(s[a]!)) a++;
  while (b > a && strip(s[b - 1]!)) b--;
  return s.slice(a, b);
}

function asciiLowerKey(s: string): string {
  return s.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

/** atoll: a saturated strtoll that ignores what follows the digits. */
function atoll(s: string): number {
  return Number(strtol(s).value);
}

/**
 * Reads a manifest as aofLoadManifestFromFile does, with its checks in its
 * order: comment lines (starting with '#') are skipped, each line needs at
 * least six space-separated words in key/value pairs, names cannot be
 * paths, there is at most one base, and incremental sequence numbers must
 * increase. Unknown keys are ignored, for forward compatibility.
 */
export function parseManifest(text: string): AofManifest | ManifestError {
  const m = emptyManifest();
  let maxIncrSeq = 0;
  let lineNumber = 0;
  let pos = 0;
  while (pos < text.length) {
    // fgets: up to 1024 bytes, or through the next newline.
    const nl = text.indexOf('\n', pos);
    const end = Math.min(nl < 0 ? text.length : nl + 1, pos + MANIFEST_MAX_LINE);
    const chunk = text.slice(pos, end);
    pos = end;
    lineNumber++;
    if (chunk[0] === '#') continue;
    const buf = cString(chunk);
    if (!buf.includes('\n')) return { reason: 'The AOF manifest file contains too long line' };
    const line = trimManifestLine(buf);
    const invalid = (): ManifestError => ({ reason: 'Invalid AOF manifest file format', line: { number: lineNumber, text: line } });
    if (line.length === 0) return invalid();
    const argv = splitArgs(line);
    if (argv === null || argv.length < 6 || argv.length % 2 !== 0) return invalid();

    let name: string | null = null;
    let seq = 0;
    let type = '';
    for (let i = 0; i < argv.length; i += 2) {
      const key = asciiLowerKey(cString(argv[i]!));
      const value = cString(argv[i + 1]!);
      if (key === KEY_FILE) {
        name = value;
        if (name.includes('/') || name.includes('\\')) {
          return { reason: "File can't be a path, just a filename", line: { number: lineNumber, text: line } };
        }
      } else if (key === KEY_SEQ) {
        seq = atoll(value);
      } else if (key === KEY_TYPE) {
        type = value.slice(0, 1);
      }
    }
    if (name === null || seq === 0 || type === '') return invalid();

    const info = { name, seq, type } as AofFileInfo;
    if (type === 'b') {
      if (m.base) return { reason: 'Found duplicate base file information', line: { number: lineNumber, text: line } };
      m.base = info;
      m.baseSeq = seq;
    } else if (type === 'h') {
      m.history.push(info);
    } else if (type === 'i') {
      if (seq <= maxIncrSeq) return { reason: 'Found a non-monotonic sequence number', line: { number: lineNumber, text: line } };
      m.incr.push(info);
      m.incrSeq = seq;
      maxIncrSeq = seq;
    } else {
      return { reason: 'Unknown AOF file type', line: { number: lineNumber, text: line } };
    }
  }
  if (lineNumber === 0) return { reason: 'Found an empty AOF manifest' };
  return m;
}

/** Whether a name must be quoted in the manifest (sdsneedsrepr): anything but printable ASCII other than space, \ and ". */
function needsQuoting(name: string): boolean {
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c <= 0x20 || c >= 0x7f || c === 0x22 || c === 0x5c) return true;
  }
  return false;
}

/** One manifest line (aofInfoFormat). */
export function formatManifestLine(info: AofFileInfo): string {
  const name = needsQuoting(info.name) ? repr(info.name) : info.name;
  return `${KEY_FILE} ${name} ${KEY_SEQ} ${info.seq} ${KEY_TYPE} ${info.type}\n`;
}

/** The manifest's text as Redis writes it: base, then history, then incremental files. */
export function formatManifest(m: AofManifest): string {
  let out = '';
  if (m.base) out += formatManifestLine(m.base);
  for (const h of m.history) out += formatManifestLine(h);
  for (const i of m.incr) out += formatManifestLine(i);
  return out;
}

// ---- names ----

/** `appendonly.aof.manifest`. */
export function manifestFileName(appendFilename: string): string {
  return `${appendFilename}.manifest`;
}

/** The name the manifest is written under before it is renamed into place. */
export function tempManifestFileName(appendFilename: string): string {
  return `temp-${appendFilename}.manifest`;
}

/** `appendonly.aof.1.base.rdb` with aof-use-rdb-preamble yes, `appendonly.aof.1.base.aof` without. */
export function baseFileName(appendFilename: string, seq: number, rdbPreamble: boolean): string {
  return `${appendFilename}.${seq}.base.${rdbPreamble ? 'rdb' : 'aof'}`;
}

/** `appendonly.aof.1.incr.aof`. */
export function incrFileName(appendFilename: string, seq: number): string {
  return `${appendFilename}.${seq}.incr.aof`;
}

/** The incremental file a rewrite that runs while AOF is off writes to (getTempIncrAofName). */
export function tempIncrFileName(appendFilename: string): string {
  return `temp-${appendFilename}.incr`;
}

/** The file a rewrite child writes before it becomes the new base (rewriteAppendOnlyFileBackground). */
export function tempRewriteFileName(childPid: number): string {
  return `temp-rewriteaof-bg-${childPid}.aof`;
}

// ---- changes, each returning a new manifest (Redis edits a copy and swaps it in) ----

function copy(m: AofManifest): AofManifest {
  return { base: m.base && { ...m.base }, history: m.history.map((h) => ({ ...h })), incr: m.incr.map((i) => ({ ...i })), baseSeq: m.baseSeq, incrSeq: m.incrSeq };
}

/**
 * A new base file after a rewrite (getNewBaseFileNameAndMarkPreAsHistory):
 * the old base, if any, becomes the first history file, and the new one
 * takes the next base sequence number.
 */
export function withNewBase(m: AofManifest, appendFilename: string, rdbPreamble: boolean): { manifest: AofManifest; name: string } {
  const next = copy(m);
  if (next.base) next.history.unshift({ ...next.base, type: 'h' });
  next.baseSeq++;
  const name = baseFileName(appendFilename, next.baseSeq, rdbPreamble);
  next.base = { name, seq: next.baseSeq, type: 'b' };
  return { manifest: next, name };
}

/** A new incremental file at the end of the list (getNewIncrAofName). */
export function withNewIncr(m: AofManifest, appendFilename: string): { manifest: AofManifest; name: string } {
  const next = copy(m);
  next.incrSeq++;
  const name = incrFileName(appendFilename, next.incrSeq);
  next.incr.push({ name, seq: next.incrSeq, type: 'i' });
  return { manifest: next, name };
}

/**
 * After a successful rewrite the incremental files it covered become
 * history (markRewrittenIncrAofAsHistory). While AOF is on the newest one
 * is being written and stays; each moved file goes to the front of the
 * history list, walking from the newest.
 */
export function withRewrittenIncrAsHistory(m: AofManifest, aofOn: boolean): AofManifest {
  const next = copy(m);
  if (next.incr.length === 0) return next;
  const keep = aofOn ? next.incr.splice(next.incr.length - 1, 1) : [];
  for (let i = next.incr.length - 1; i >= 0; i--) next.history.unshift({ ...next.incr[i]!, type: 'h' });
  next.incr = keep;
  return next;
}

/** The manifest once history files are deleted (aofDelHistoryFiles). */
export function withoutHistory(m: AofManifest): AofManifest {
  const next = copy(m);
  next.history = [];
  return next;
}

/** The files replayed on load, in order: the base, then the incremental files. */
export function filesToLoad(m: AofManifest): AofFileInfo[] {
  return m.base ? [m.base, ...m.incr] : [...m.incr];
}
