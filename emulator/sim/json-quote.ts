import type { TraceHash } from './trace.js';

const QUOTE = 0x22;

/**
 * A string as JSON.stringify writes it. The trace quotes every command's
 * arguments this way, and almost none holds a character JSON escapes
 * (a quote, a backslash, a control character, a surrogate), so those are
 * found by one scan and only a string that has one goes to JSON.stringify.
 *
 *   jsonQuote('a"b')   // '"a\\"b"', as JSON.stringify('a"b')
 */
export function jsonQuote(s: string): string {
  return escapesNothing(s) ? `"${s}"` : JSON.stringify(s);
}

/** Whether JSON.stringify writes `s` between quotes as it is: no quote, backslash, control character or surrogate. */
function escapesNothing(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || c >= 0xd800) return false;
  }
  return true;
}

/** An array of strings as JSON.stringify writes it. */
export function jsonQuoteAll(strings: readonly string[]): string {
  let out = '[';
  for (let i = 0; i < strings.length; i++) out += (i === 0 ? '' : ',') + jsonQuote(strings[i]!);
  return out + ']';
}

/**
 * Feeds the characters of jsonQuote(s) to `h`, in order, without making
 * that string when `s` holds nothing JSON escapes.
 */
export function hashJsonQuote(h: TraceHash, s: string): void {
  if (!escapesNothing(s)) {
    h.chars(JSON.stringify(s));
    return;
  }
  h.char(QUOTE);
  h.chars(s);
  h.char(QUOTE);
}

/** Feeds the characters of jsonQuoteAll(strings) to `h`, in order. */
export function hashJsonQuoteAll(h: TraceHash, strings: readonly string[]): void {
  h.char(0x5b);
  for (let i = 0; i < strings.length; i++) {
    if (i > 0) h.char(0x2c);
    hashJsonQuote(h, strings[i]!);
  }
  h.char(0x5d);
}
