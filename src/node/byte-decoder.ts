import type { ByteDecoder } from '../../emulator/index.js';

/** Node's native latin1 decoder: bytes to a byte string in one copy. */
const latin1Slice = (Buffer.prototype as unknown as { latin1Slice(this: Uint8Array, start: number, end: number): string }).latin1Slice;

/**
 * V8 copies a slice shorter than this instead of pointing into its parent,
 * so a short argument cut from a decoded window keeps nothing else alive.
 */
const COPIED_SLICE_MAX = 12;

/** How many bytes of a read one decoding of short arguments covers. */
const DECODE_WINDOW = 1024;

/**
 * Short strings seen lately, by a hash of their length and end bytes. The
 * same command names, small counts and short keys come back all the time;
 * handing back the same string object saves allocating it and, since V8
 * keeps a string's hash, hashing it again for the command table and the
 * keyspace. Shared by every connection: strings are immutable.
 */
const recent: string[] = new Array<string>(256).fill('');

/**
 * The request parser's byte decoder for the TCP server. One native call per
 * argument costs more than parsing it, so short arguments come from the
 * recent strings, or are sliced from a decoded window of the read that the
 * commands after them share. Longer ones are decoded on their own, so that
 * a stored value never holds on to more than itself.
 *
 *   const decode = readDecoder();
 *   decode(bytes, 0, 3);   // 'GET'
 */
export function readDecoder(): ByteDecoder {
  let windowBuf: Uint8Array | null = null;
  let windowStart = 0;
  let windowEnd = 0;
  let window = '';
  return (buf, start, end) => {
    const len = end - start;
    if (len > COPIED_SLICE_MAX) return latin1Slice.call(buf, start, end);
    if (len === 0) return '';
    const slot = (len * 31 + buf[start]! * 7 + buf[end - 1]!) & 255;
    const seen = recent[slot]!;
    if (seen.length === len) {
      let i = 0;
      while (i < len && seen.charCodeAt(i) === buf[start + i]) i++;
      if (i === len) return seen;
    }
    if (buf !== windowBuf || start < windowStart || end > windowEnd) {
      windowBuf = buf;
      windowStart = start;
      windowEnd = Math.min(buf.length, start + DECODE_WINDOW);
      window = latin1Slice.call(buf, windowStart, windowEnd);
    }
    const s = window.slice(start - windowStart, end - windowStart);
    recent[slot] = s;
    return s;
  };
}
