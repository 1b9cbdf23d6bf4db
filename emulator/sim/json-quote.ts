/**
 * A string as JSON.stringify writes it. The trace quotes every command's
 * arguments this way, and almost none holds a character JSON escapes
 * (a quote, a backslash, a control character, a surrogate), so those are
 * found by one scan and only a string that has one goes to JSON.stringify.
 *
 *   jsonQuote('a"b')   // '"a\\"b"', as JSON.stringify('a"b')
 */
export function jsonQuote(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || c >= 0xd800) return JSON.stringify(s);
  }
  return `"${s}"`;
}

/** An array of strings as JSON.stringify writes it. */
export function jsonQuoteAll(strings: readonly string[]): string {
  let out = '[';
  for (let i = 0; i < strings.length; i++) out += (i === 0 ? '' : ',') + jsonQuote(strings[i]!);
  return out + ']';
}
