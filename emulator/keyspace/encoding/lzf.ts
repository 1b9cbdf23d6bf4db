/**
 * LZF as Redis uses it for RDB strings and compressed quicklist nodes
 * (src/lzf_c.c, src/lzf_d.c, built with HLOG 16 and VERY_FAST). The
 * compressed output must equal Redis's byte for byte, so the compressor
 * makes the same choices: the same 16-bit hash of the next three bytes,
 * one candidate per hash slot, the greedy longest match against it, and
 * after a match only the last two positions of the match enter the table.
 *
 * Format: 000LLLLL + L+1 literal bytes; LLLooooo oooooooo is a back
 * reference of L+2 bytes at distance o+1; 111ooooo LLLLLLLL oooooooo the
 * same with L+9 bytes.
 */

const HSIZE = 1 << 16;
const MAX_LIT = 1 << 5;
const MAX_OFF = 1 << 13;
const MAX_REF = (1 << 8) + (1 << 3);

/**
 * The hash table, shared by every call. Instead of clearing 64K slots per
 * call, each call owns the stamp range (base, base + input length]: a slot
 * holds base + position, and anything at or below the current base is an
 * earlier call's and counts as empty. Position 0 maps to the base itself,
 * which is never a candidate, as in Redis (a reference must lie after the
 * start of the input).
 */
const table = new Float64Array(HSIZE);
let base = 0;

function slotOf(h: number): number {
  return ((h >>> 8) - h * 5) & (HSIZE - 1);
}

/**
 * Compresses `input` into at most `outLimit` bytes; null when the result
 * would not fit (lzf_compress returning 0).
 */
export function lzfCompress(input: Uint8Array, outLimit: number): Uint8Array | null {
  const inLen = input.length;
  if (inLen === 0 || outLimit <= 0) return null;
  if (base > 2 ** 52) {
    table.fill(0);
    base = 0;
  }
  const b = base;
  base += inLen + 1;
  const out = new Uint8Array(outLimit + 4);
  let ip = 0;
  let op = 1; // room for the first literal run's header
  let lit = 0;
  let hval = (input[0]! << 8) | (inLen > 1 ? input[1]! : 0);

  while (ip < inLen - 2) {
    hval = ((hval << 8) | input[ip + 2]!) & 0xffffff;
    const slot = slotOf(hval);
    const stored = table[slot]!;
    table[slot] = b + ip;
    const ref = stored > b ? stored - b : 0;
    const off = ip - ref - 1;
    if (
      ref > 0 &&
      off < MAX_OFF &&
      input[ref + 2] === input[ip + 2] &&
      input[ref] === input[ip] &&
      input[ref + 1] === input[ip + 1]
    ) {
      let len = 2;
      let maxlen = inLen - ip - len;
      if (maxlen > MAX_REF) maxlen = MAX_REF;
      if (op + 3 + 1 >= outLimit && op - (lit === 0 ? 1 : 0) + 3 + 1 >= outLimit) return null;
      out[op - lit - 1] = lit - 1; // close the literal run
      if (lit === 0) op--; // an empty run takes no header
      extend: {
        // Redis checks the next sixteen bytes unconditionally when there
        // is room for them, so a match can run up to two bytes past maxlen.
        if (maxlen > 16) {
          for (let k = 0; k < 16; k++) {
            len++;
            if (input[ref + len] !== input[ip + len]) break extend;
          }
        }
        do len++;
        while (len < maxlen && input[ref + len] === input[ip + len]);
      }
      len -= 2;
      ip++;
      if (len < 7) {
        out[op++] = (off >> 8) + (len << 5);
      } else {
        out[op++] = (off >> 8) + (7 << 5);
        out[op++] = len - 7;
      }
      out[op++] = off & 0xff;
      lit = 0;
      op++; // header of the next literal run
      ip += len + 1;
      if (ip >= inLen - 2) break;
      // Only the last two positions of the match are remembered.
      ip -= 2;
      hval = (input[ip]! << 8) | input[ip + 1]!;
      hval = ((hval << 8) | input[ip + 2]!) & 0xffffff;
      table[slotOf(hval)] = b + ip;
      ip++;
      hval = ((hval << 8) | input[ip + 2]!) & 0xffffff;
      table[slotOf(hval)] = b + ip;
      ip++;
    } else {
      if (op >= outLimit) return null;
      lit++;
      out[op++] = input[ip++]!;
      if (lit === MAX_LIT) {
        out[op - lit - 1] = lit - 1;
        lit = 0;
        op++;
      }
    }
  }
  if (op + 3 > outLimit) return null;
  while (ip < inLen) {
    lit++;
    out[op++] = input[ip++]!;
    if (lit === MAX_LIT) {
      out[op - lit - 1] = lit - 1;
      lit = 0;
      op++;
    }
  }
  out[op - lit - 1] = lit - 1;
  if (lit === 0) op--;
  return out.slice(0, op);
}

/**
 * Decompresses `input`, which must expand to exactly `outLen` bytes; null
 * when it is malformed or expands to anything else.
 */
export function lzfDecompress(input: Uint8Array, outLen: number): Uint8Array | null {
  const out = new Uint8Array(outLen);
  const inLen = input.length;
  let ip = 0;
  let op = 0;
  while (ip < inLen) {
    const ctrl = input[ip++]!;
    if (ctrl < MAX_LIT) {
      const n = ctrl + 1;
      if (op + n > outLen || ip + n > inLen) return null;
      out.set(input.subarray(ip, ip + n), op);
      ip += n;
      op += n;
    } else {
      let len = ctrl >> 5;
      let ref = op - ((ctrl & 0x1f) << 8) - 1;
      if (ip >= inLen) return null;
      if (len === 7) {
        len += input[ip++]!;
        if (ip >= inLen) return null;
      }
      ref -= input[ip++]!;
      if (op + len + 2 > outLen || ref < 0) return null;
      // Byte by byte: the source may overlap what is being written.
      for (let k = 0; k < len + 2; k++) out[op++] = out[ref++]!;
    }
  }
  return op === outLen ? out : null;
}
