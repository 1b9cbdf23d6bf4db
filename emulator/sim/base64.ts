/**
 * Standard base64 (RFC 4648, with padding), so that file contents fit in a
 * JSON checkpoint at a third over their size. The emulator cannot lean on
 * Buffer or btoa, which are Node's and the browser's.
 *
 *   decodeBase64(encodeBase64(bytes)) // equals bytes
 */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const ENCODE = Uint8Array.from(ALPHABET, (c) => c.charCodeAt(0));
const DECODE = new Int16Array(128).fill(-1);
for (let i = 0; i < 64; i++) DECODE[ALPHABET.charCodeAt(i)] = i;
const PAD = 61; // '='

export function encodeBase64(bytes: Uint8Array): string {
  const n = bytes.length;
  const out = new Uint8Array(Math.ceil(n / 3) * 4);
  let o = 0;
  let i = 0;
  for (; i + 2 < n; i += 3) {
    const v = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out[o++] = ENCODE[v >> 18]!;
    out[o++] = ENCODE[(v >> 12) & 63]!;
    out[o++] = ENCODE[(v >> 6) & 63]!;
    out[o++] = ENCODE[v & 63]!;
  }
  if (i < n) {
    const two = i + 1 < n;
    const v = (bytes[i]! << 16) | (two ? bytes[i + 1]! << 8 : 0);
    out[o++] = ENCODE[v >> 18]!;
    out[o++] = ENCODE[(v >> 12) & 63]!;
    out[o++] = two ? ENCODE[(v >> 6) & 63]! : PAD;
    out[o] = PAD;
  }
  // String.fromCharCode takes its codes as arguments: go in slices that stay
  // well under engines' argument limits.
  let s = '';
  for (let k = 0; k < out.length; k += 0x8000) s += String.fromCharCode(...out.subarray(k, k + 0x8000));
  return s;
}

export function decodeBase64(text: string): Uint8Array {
  if (text.length % 4 !== 0) throw new SyntaxError('base64 text length is not a multiple of 4');
  let pad = 0;
  if (text.endsWith('==')) pad = 2;
  else if (text.endsWith('=')) pad = 1;
  const out = new Uint8Array((text.length / 4) * 3 - pad);
  let o = 0;
  for (let i = 0; i < text.length; i += 4) {
    const a = sextet(text, i);
    const b = sextet(text, i + 1);
    const last = i + 4 === text.length;
    const c = last && pad === 2 ? 0 : sextet(text, i + 2);
    const d = last && pad >= 1 ? 0 : sextet(text, i + 3);
    const v = (a << 18) | (b << 12) | (c << 6) | d;
    out[o++] = v >> 16;
    if (o < out.length) out[o++] = (v >> 8) & 255;
    if (o < out.length) out[o++] = v & 255;
  }
  return out;
}

function sextet(text: string, i: number): number {
  const code = text.charCodeAt(i);
  const v = code < 128 ? DECODE[code]! : -1;
  if (v < 0) throw new SyntaxError(`not base64 at offset ${i}`);
  return v;
}
