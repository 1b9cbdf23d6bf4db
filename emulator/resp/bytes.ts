/**
 * Byte strings.
 *
 * Redis keys and values are arbitrary bytes. Inside the emulator they are
 * JavaScript strings whose every code unit is a byte (0..255), so they can be
 * Map keys, compare like memcmp, and cost one byte per character in V8.
 * Text from the outside world (a user's typing, a client API argument) enters
 * through utf8ToBytes; text shown to people leaves through bytesToUtf8.
 */

/** True when every code unit is below 0x80, so the UTF-8 and byte forms agree. */
export function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** Encodes a JavaScript (UTF-16) string as the byte string of its UTF-8. */
export function utf8ToBytes(s: string): string {
  if (isAscii(s)) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (c < 0x80) {
      out += s[i];
      continue;
    }
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const lo = s.charCodeAt(i + 1);
      if (lo >= 0xdc00 && lo <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
        i++;
      } else {
        c = 0xfffd;
      }
    } else if (c >= 0xd800 && c <= 0xdfff) {
      c = 0xfffd;
    }
    if (c < 0x800) {
      out += String.fromCharCode(0xc0 | (c >> 6), 0x80 | (c & 0x3f));
    } else if (c < 0x10000) {
      out += String.fromCharCode(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f));
    } else {
      out += String.fromCharCode(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 0x3f), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f));
    }
  }
  return out;
}

/**
 * Decodes a byte string as UTF-8. Bytes that are not valid UTF-8 become
 * U+FFFD, one per offending byte.
 */
export function bytesToUtf8(b: string): string {
  if (isAscii(b)) return b;
  let out = '';
  const n = b.length;
  for (let i = 0; i < n; ) {
    const c = b.charCodeAt(i);
    if (c < 0x80) {
      out += b[i];
      i++;
      continue;
    }
    let need = 0;
    let cp = 0;
    let min = 0;
    if (c >= 0xc2 && c <= 0xdf) { need = 1; cp = c & 0x1f; min = 0x80; }
    else if (c >= 0xe0 && c <= 0xef) { need = 2; cp = c & 0x0f; min = 0x800; }
    else if (c >= 0xf0 && c <= 0xf4) { need = 3; cp = c & 0x07; min = 0x10000; }
    let ok = need > 0 && i + need < n;
    for (let k = 1; ok && k <= need; k++) {
      const cc = b.charCodeAt(i + k);
      if ((cc & 0xc0) !== 0x80) ok = false;
      else cp = (cp << 6) | (cc & 0x3f);
    }
    if (ok && cp >= min && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff)) {
      out += String.fromCodePoint(cp);
      i += need + 1;
    } else {
      out += '\ufffd';
      i++;
    }
  }
  return out;
}

/**
 * A host's own conversion between bytes and byte strings (Latin-1 in both
 * directions), for long runs: a value of a megabyte crossing a socket or
 * an RDB file would otherwise cost a loop over its characters in
 * JavaScript. Node has one (Buffer's latin1); a browser has none (its
 * TextDecoder's "latin1" is windows-1252), so there the loops stay.
 */
export interface ByteCodec {
  /** The bytes a[start..end) as a byte string. */
  decode(a: Uint8Array, start: number, end: number): string;
  /** Writes every character of the byte string `s` into `into` from `at` (which has room for it). */
  encodeInto(s: string, into: Uint8Array, at: number): void;
}

/** Below this length the loops cost less than a call into the host. */
export const HOST_CODEC_MIN_BYTES = 1024;

let hostCodec: ByteCodec | null = null;

/** Installs (or, with null, removes) the host's conversion; results are the same bytes either way. */
export function useHostByteCodec(codec: ByteCodec | null): void {
  hostCodec = codec;
}

const fromCodes = String.fromCharCode;

/**
 * Up to 12 bytes as a byte string made in one call: command names, keys and
 * small values (in requests and in files) are mostly this short, and building
 * them a character at a time leaves a dozen dead strings behind each one.
 */
export function shortString(a: Uint8Array, s: number, n: number): string {
  switch (n) {
    case 0:
      return '';
    case 1:
      return fromCodes(a[s]!);
    case 2:
      return fromCodes(a[s]!, a[s + 1]!);
    case 3:
      return fromCodes(a[s]!, a[s + 1]!, a[s + 2]!);
    case 4:
      return fromCodes(a[s]!, a[s + 1]!, a[s + 2]!, a[s + 3]!);
    case 5:
      return fromCodes(a[s]!, a[s + 1]!, a[s + 2]!, a[s + 3]!, a[s + 4]!);
    case 6:
      return fromCodes(a[s]!, a[s + 1]!, a[s + 2]!, a[s + 3]!, a[s + 4]!, a[s + 5]!);
    case 7:
      return fromCodes(a[s]!, a[s + 1]!, a[s + 2]!, a[s + 3]!, a[s + 4]!, a[s + 5]!, a[s + 6]!);
    case 8:
      return fromCodes(a[s]!, a[s + 1]!, a[s + 2]!, a[s + 3]!, a[s + 4]!, a[s + 5]!, a[s + 6]!, a[s + 7]!);
    case 9:
      return fromCodes(a[s]!, a[s + 1]!, a[s + 2]!, a[s + 3]!, a[s + 4]!, a[s + 5]!, a[s + 6]!, a[s + 7]!, a[s + 8]!);
    case 10:
      return fromCodes(a[s]!, a[s + 1]!, a[s + 2]!, a[s + 3]!, a[s + 4]!, a[s + 5]!, a[s + 6]!, a[s + 7]!, a[s + 8]!, a[s + 9]!);
    case 11:
      return fromCodes(a[s]!, a[s + 1]!, a[s + 2]!, a[s + 3]!, a[s + 4]!, a[s + 5]!, a[s + 6]!, a[s + 7]!, a[s + 8]!, a[s + 9]!, a[s + 10]!);
    default:
      return fromCodes(a[s]!, a[s + 1]!, a[s + 2]!, a[s + 3]!, a[s + 4]!, a[s + 5]!, a[s + 6]!, a[s + 7]!, a[s + 8]!, a[s + 9]!, a[s + 10]!, a[s + 11]!);
  }
}

/** Copies bytes into a byte string. */
export function bytesFromArray(a: Uint8Array, start = 0, end = a.length): string {
  const n = end - start;
  if (n >= HOST_CODEC_MIN_BYTES && hostCodec !== null) return hostCodec.decode(a, start, end);
  // Short arguments (command names, keys, small values) are most of what a
  // server decodes. Up to 12 characters they are made in one call; longer
  // ones come from a small cache of recent strings (a key used again is the
  // same string, already hashed) or are built in one call.
  if (n <= 12) return shortString(a, start, n);
  if (n <= 64) return interned(a, start, end);
  const CHUNK = 8192;
  if (end - start <= CHUNK) return String.fromCharCode.apply(null, a.subarray(start, end) as unknown as number[]);
  const parts: string[] = [];
  for (let i = start; i < end; i += CHUNK) {
    parts.push(String.fromCharCode.apply(null, a.subarray(i, Math.min(end, i + CHUNK)) as unknown as number[]));
  }
  return parts.join('');
}

const INTERN_SLOTS = 4096;
const internCache: Array<string | null> = new Array<string | null>(INTERN_SLOTS).fill(null);

/** A string for these bytes, the same one as last time when it is still cached. */
function interned(a: Uint8Array, start: number, end: number): string {
  const n = end - start;
  let h = n;
  for (let i = start; i < end; i++) h = (Math.imul(h, 31) + a[i]!) | 0;
  const slot = h & (INTERN_SLOTS - 1);
  const cached = internCache[slot]!;
  if (cached !== null && cached.length === n) {
    let same = true;
    for (let i = 0; i < n; i++) {
      if (cached.charCodeAt(i) !== a[start + i]) {
        same = false;
        break;
      }
    }
    if (same) return cached;
  }
  const s = String.fromCharCode.apply(null, a.subarray(start, end) as unknown as number[]);
  internCache[slot] = s;
  return s;
}

/** Writes the `n` bytes of the byte string `s` from `from` into `into` at `at` (which has room for them). */
export function copyBytesInto(s: string, from: number, n: number, into: Uint8Array, at: number): void {
  if (n >= HOST_CODEC_MIN_BYTES && hostCodec !== null) {
    hostCodec.encodeInto(from === 0 && n === s.length ? s : s.slice(from, from + n), into, at);
    return;
  }
  for (let i = from, end = from + n; i < end; i++) into[at++] = s.charCodeAt(i);
}

/** The bytes of a byte string. */
export function bytesToArray(b: string): Uint8Array {
  const out = new Uint8Array(b.length);
  if (b.length >= HOST_CODEC_MIN_BYTES && hostCodec !== null) {
    hostCodec.encodeInto(b, out, 0);
    return out;
  }
  for (let i = 0; i < b.length; i++) out[i] = b.charCodeAt(i);
  return out;
}

/** ASCII-only upper case (C's toupper in the "C" locale); other bytes stay. */
export function asciiUpper(s: string): string {
  return s.replace(/[a-z]+/g, (m) => m.toUpperCase());
}

/** ASCII-only lower case (C's tolower in the "C" locale); other bytes stay. */
export function asciiLower(s: string): string {
  return s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

/**
 * sdscatrepr: a byte string in double quotes, with \n \r \t \a \b, \" and \\
 * escaped and every other byte outside printable ASCII as \xhh.
 */
export function repr(s: string): string {
  let out = '"';
  let run = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c <= 0x7e && c !== 0x22 && c !== 0x5c) continue;
    out += s.slice(run, i);
    run = i + 1;
    switch (c) {
      case 0x22: out += '\\"'; break;
      case 0x5c: out += '\\\\'; break;
      case 0x0a: out += '\\n'; break;
      case 0x0d: out += '\\r'; break;
      case 0x09: out += '\\t'; break;
      case 0x07: out += '\\a'; break;
      case 0x08: out += '\\b'; break;
      default: out += (c < 16 ? '\\x0' : '\\x') + c.toString(16);
    }
  }
  return out + s.slice(run) + '"';
}
