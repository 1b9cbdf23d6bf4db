/**
 * SHA-1 (FIPS 180-4), the hash under DEBUG DIGEST (src/debug.c). A digest
 * reads every byte of the dataset: Redis's replication tests take it of
 * 200 MB datasets and compare a primary's with its replica's, so the hash
 * works on words straight from the byte string (no copy of the message),
 * with one loop per round function rather than a branch per step, and a
 * host may supply its own implementation for long inputs (Node's, under
 * `npm run server`). Either way the result is the same 20 bytes.
 */

/** A host's SHA-1 of a byte string or of bytes. */
export type HostSha1 = (data: string | Uint8Array) => Uint8Array;

/** Below this length the call into the host costs more than the loop. */
export const HOST_SHA1_MIN_BYTES = 256;

let hostSha1: HostSha1 | null = null;

/** Installs (or, with null, removes) the host's SHA-1; results are the same bytes either way. */
export function useHostSha1(fn: HostSha1 | null): void {
  hostSha1 = fn;
}

const W = new Int32Array(80);
const H = new Int32Array(5);

/** One 64-byte block, whose 16 words are in W[0..15], folded into H. */
function block(): void {
  const w = W;
  for (let i = 16; i < 80; i++) {
    const x = w[i - 3]! ^ w[i - 8]! ^ w[i - 14]! ^ w[i - 16]!;
    w[i] = (x << 1) | (x >>> 31);
  }
  let a = H[0]!;
  let b = H[1]!;
  let c = H[2]!;
  let d = H[3]!;
  let e = H[4]!;
  let i = 0;
  for (; i < 20; i++) {
    const t = (((a << 5) | (a >>> 27)) + ((b & c) | (~b & d)) + e + 0x5a827999 + w[i]!) | 0;
    e = d;
    d = c;
    c = (b << 30) | (b >>> 2);
    b = a;
    a = t;
  }
  for (; i < 40; i++) {
    const t = (((a << 5) | (a >>> 27)) + (b ^ c ^ d) + e + 0x6ed9eba1 + w[i]!) | 0;
    e = d;
    d = c;
    c = (b << 30) | (b >>> 2);
    b = a;
    a = t;
  }
  for (; i < 60; i++) {
    const t = (((a << 5) | (a >>> 27)) + ((b & c) | (b & d) | (c & d)) + e + 0x8f1bbcdc + w[i]!) | 0;
    e = d;
    d = c;
    c = (b << 30) | (b >>> 2);
    b = a;
    a = t;
  }
  for (; i < 80; i++) {
    const t = (((a << 5) | (a >>> 27)) + (b ^ c ^ d) + e + 0xca62c1d6 + w[i]!) | 0;
    e = d;
    d = c;
    c = (b << 30) | (b >>> 2);
    b = a;
    a = t;
  }
  H[0] = (H[0]! + a) | 0;
  H[1] = (H[1]! + b) | 0;
  H[2] = (H[2]! + c) | 0;
  H[3] = (H[3]! + d) | 0;
  H[4] = (H[4]! + e) | 0;
}

function blocksOfString(s: string, end: number): void {
  for (let off = 0; off < end; off += 64) {
    for (let i = 0, j = off; i < 16; i++, j += 4) {
      W[i] =
        ((s.charCodeAt(j) & 0xff) << 24) |
        ((s.charCodeAt(j + 1) & 0xff) << 16) |
        ((s.charCodeAt(j + 2) & 0xff) << 8) |
        (s.charCodeAt(j + 3) & 0xff);
    }
    block();
  }
}

function blocksOfBytes(a: Uint8Array, end: number): void {
  for (let off = 0; off < end; off += 64) {
    for (let i = 0, j = off; i < 16; i++, j += 4) W[i] = (a[j]! << 24) | (a[j + 1]! << 16) | (a[j + 2]! << 8) | a[j + 3]!;
    block();
  }
}

/** SHA-1 of a byte string (each character one byte) or of bytes. */
export function sha1(data: string | Uint8Array): Uint8Array {
  const n = data.length;
  if (hostSha1 !== null && n >= HOST_SHA1_MIN_BYTES) return hostSha1(data);
  H[0] = 0x67452301;
  H[1] = 0xefcdab89 | 0;
  H[2] = 0x98badcfe | 0;
  H[3] = 0x10325476;
  H[4] = 0xc3d2e1f0 | 0;
  const whole = n - (n % 64);
  if (typeof data === 'string') blocksOfString(data, whole);
  else blocksOfBytes(data, whole);
  // The last partial block, the 0x80 byte, zeros, and the length in bits as
  // a 64-bit big-endian number: one block, or two when fewer than 9 bytes
  // are left after the message.
  const tail = new Uint8Array(n - whole < 56 ? 64 : 128);
  if (typeof data === 'string') for (let j = whole; j < n; j++) tail[j - whole] = data.charCodeAt(j) & 0xff;
  else tail.set(data.subarray(whole));
  tail[n - whole] = 0x80;
  const bits = n * 8;
  const last = tail.length;
  tail[last - 1] = bits & 0xff;
  tail[last - 2] = (bits >>> 8) & 0xff;
  tail[last - 3] = (bits >>> 16) & 0xff;
  tail[last - 4] = (bits >>> 24) & 0xff;
  tail[last - 5] = Math.floor(bits / 2 ** 32) & 0xff;
  blocksOfBytes(tail, last);
  const out = new Uint8Array(20);
  for (let i = 0; i < 5; i++) {
    const h = H[i]!;
    out[i * 4] = h >>> 24;
    out[i * 4 + 1] = h >>> 16;
    out[i * 4 + 2] = h >>> 8;
    out[i * 4 + 3] = h;
  }
  return out;
}
