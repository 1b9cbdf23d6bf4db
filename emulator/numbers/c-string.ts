/**
 * How C's string functions see a JavaScript string that holds bytes: Redis
 * passes many arguments through strcmp, strtol, printf's %s and the like,
 * which stop at the first NUL byte. One place for that view, so every reader
 * cuts at the same point.
 */

/** A byte string as a C string: everything before its first NUL. */
export function cString(s: string): string {
  const nul = s.indexOf('\0');
  return nul < 0 ? s : s.slice(0, nul);
}

/** C's isspace in the "C" locale: blank, tab, newline, vertical tab, form feed, carriage return. */
export function isCSpace(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d);
}
