import { isManifestError, parseManifest, type AofFileInfo } from '../aof/manifest.js';

/**
 * A multi-part AOF manifest explained line by line: what each `file ...
 * seq ... type ...` line names and what Redis does with that file on
 * start, read with the server's own parser (aof/manifest.ts), plus the
 * line where the server would refuse the manifest, and why.
 *
 *   explainManifest('file appendonly.aof.1.base.rdb seq 1 type b\n')
 *   // lines[0].role === 'base', lines[0].text === 'the dataset as of the last rewrite, ...'
 */
export interface ManifestLine {
  /** 1-based, as Redis counts them in its errors. */
  readonly number: number;
  /** The line as written (a byte string, without its newline). */
  readonly raw: string;
  readonly role: 'base' | 'history' | 'incr' | 'comment' | 'invalid';
  readonly file?: AofFileInfo;
  /** What the line means, in words. */
  readonly text: string;
}

export interface ManifestExplanation {
  readonly lines: readonly ManifestLine[];
  /** The files Redis loads, in order; empty when it refuses the manifest. */
  readonly loadOrder: readonly string[];
  /** Why Redis refuses the manifest, and at which line; null when it accepts it. */
  readonly error: { readonly reason: string; readonly line: number | null } | null;
}

export function explainManifest(text: string): ManifestExplanation {
  const whole = parseManifest(text);
  const error = isManifestError(whole) ? { reason: whole.reason, line: whole.line?.number ?? null } : null;
  const raws = text.split('\n');
  if (raws[raws.length - 1] === '') raws.pop();
  let incrCount = 0;
  const lines: ManifestLine[] = raws.map((raw, i) => {
    const number = i + 1;
    if (raw.startsWith('#')) return { number, raw, role: 'comment', text: 'a comment: Redis skips it' };
    const one = parseManifest(raw + '\n');
    if (isManifestError(one)) return { number, raw, role: 'invalid', text: `not a valid line: ${one.reason}` };
    if (one.base !== null) return { number, raw, role: 'base', file: one.base, text: baseText(one.base) };
    if (one.history.length > 0) {
      return { number, raw, role: 'history', file: one.history[0]!, text: 'a history file: replaced by a rewrite; Redis never loads it and deletes it soon' };
    }
    const file = one.incr[0]!;
    incrCount++;
    return {
      number,
      raw,
      role: 'incr',
      file,
      text: `incremental file ${incrCount}: the commands written after the base${incrCount > 1 ? ' and the incremental files before it' : ''}, replayed in order`,
    };
  });
  const loadOrder = isManifestError(whole) ? [] : [...(whole.base ? [whole.base.name] : []), ...whole.incr.map((f) => f.name)];
  return { lines, loadOrder, error };
}

function baseText(f: AofFileInfo): string {
  const form = f.name.endsWith('.rdb') ? 'in RDB format (a snapshot)' : f.name.endsWith('.aof') ? 'as commands' : 'as a snapshot or as commands';
  return `the base: the dataset as of the last rewrite, ${form}; Redis loads it first`;
}
