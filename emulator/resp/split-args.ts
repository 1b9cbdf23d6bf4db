import { isCSpace } from '../numbers/c-string.js';

/**
 * Splits a line into arguments the way Redis's sdssplitargs (src/sds.c)
 * does: for inline commands on the wire and for what a user types at
 * redis-cli. Double quotes take escapes (\n \r \t \b \a \xHH, and \<c> for
 * any other c); single quotes take only \'. A closing quote must be followed
 * by a space or the end. The line ends at its first NUL byte, as a C string
 * would. Returns null for unbalanced quotes. Works on byte strings.
 */
export function splitArgs(input: string): string[] | null {
  const nul = input.indexOf('\0');
  const line = nul < 0 ? input : input.slice(0, nul);
  const n = line.length;
  const out: string[] = [];
  let p = 0;
  for (;;) {
    while (p < n && isCSpace(line.charCodeAt(p))) p++;
    if (p >= n) return out;
    let inDq = false;
    let inSq = false;
    let done = false;
    let cur = '';
    while (!done) {
      const c = p < n ? line[p]! : '';
      if (inDq) {
        if (c === '\\' && line[p + 1] === 'x' && isHex(line.charCodeAt(p + 2)) && isHex(line.charCodeAt(p + 3))) {
          cur += String.fromCharCode(parseInt(line.slice(p + 2, p + 4), 16));
          p += 3;
        } else if (c === '\\' && p + 1 < n) {
          p++;
          const e = line[p]!;
          cur += e === 'n' ? '\n' : e === 'r' ? '\r' : e === 't' ? '\t' : e === 'b' ? '\b' : e === 'a' ? '\x07' : e;
        } else if (c === '"') {
          if (p + 1 < n && !isCSpace(line.charCodeAt(p + 1))) return null;
          done = true;
        } else if (c === '') {
          return null;
        } else {
          cur += c;
        }
      } else if (inSq) {
        if (c === '\\' && line[p + 1] === "'") {
          p++;
          cur += "'";
        } else if (c === "'") {
          if (p + 1 < n && !isCSpace(line.charCodeAt(p + 1))) return null;
          done = true;
        } else if (c === '') {
          return null;
        } else {
          cur += c;
        }
      } else if (c === ' ' || c === '\n' || c === '\r' || c === '\t' || c === '') {
        done = true;
      } else if (c === '"') {
        inDq = true;
      } else if (c === "'") {
        inSq = true;
      } else {
        cur += c;
      }
      if (p < n) p++;
    }
    out.push(cur);
  }
}

function isHex(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}
