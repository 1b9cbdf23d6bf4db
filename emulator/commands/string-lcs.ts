import { stringOf } from '../keyspace/values.js';
import type { Int64 } from '../numbers/int64.js';
import { bytesFromArray, bytesToArray } from '../resp/bytes.js';
import { MapReply, errorReply, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import { int64Arg, opt } from './args.js';
import { NOT_INTEGER, SYNTAX_ERROR } from '../server/errors.js';
import { isStringValue } from './string-access.js';

/**
 * LCS key1 key2 [LEN] [IDX] [MINMATCHLEN n] [WITHMATCHLEN] (src/t_string.c):
 * the longest common subsequence by the classic dynamic programming table,
 * walked back from the end. Redis refuses when the table would take more
 * bytes (4 per cell) than proto-max-bulk-len; the same limit applies here.
 */

const NOT_STRINGS = errorReply('The specified keys must contain string values');
const LEN_AND_IDX = errorReply('If you want both the length and indexes, please just use IDX.');
const TABLE_TOO_BIG = errorReply('Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len');
const ALLOCATION_FAILED = errorReply('Insufficient memory, failed allocating transient memory for LCS');

type Table = Uint8Array | Uint16Array | Uint32Array;

/** A table whose cells can hold any LCS length of the two strings, or null when it cannot be had. */
function allocateTable(cells: number, maxLength: number): Table | null {
  try {
    if (maxLength <= 0xff) return new Uint8Array(cells);
    if (maxLength <= 0xffff) return new Uint16Array(cells);
    return new Uint32Array(cells);
  } catch {
    return null;
  }
}

export function lcs(c: Client, argv: string[]): Reply {
  const va = c.db.lookupRead(argv[1]!);
  const vb = c.db.lookupRead(argv[2]!);
  if ((va !== undefined && !isStringValue(va)) || (vb !== undefined && !isStringValue(vb))) return NOT_STRINGS;
  let wantLen = false;
  let wantIdx = false;
  let withMatchLen = false;
  let minMatchLen: Int64 = 0;
  for (let j = 3; j < argv.length; j++) {
    const o = opt(argv[j]!);
    if (o === 'idx') wantIdx = true;
    else if (o === 'len') wantLen = true;
    else if (o === 'withmatchlen') withMatchLen = true;
    else if (o === 'minmatchlen' && j < argv.length - 1) {
      const n = int64Arg(argv[++j]!);
      if (n === null) return NOT_INTEGER;
      minMatchLen = n < 0 ? 0 : n;
    } else {
      return SYNTAX_ERROR;
    }
  }
  if (wantLen && wantIdx) return LEN_AND_IDX;

  const a = bytesToArray(va === undefined ? '' : stringOf(va));
  const b = bytesToArray(vb === undefined ? '' : stringOf(vb));
  const alen = a.length;
  const blen = b.length;
  const width = blen + 1;
  const cells = (alen + 1) * width;
  if (cells * 4 > c.server.config.getNumber('proto-max-bulk-len')) return TABLE_TOO_BIG;
  const t = allocateTable(cells, Math.min(alen, blen));
  if (t === null) return ALLOCATION_FAILED;

  // t[i * width + j] is the LCS length of a[0..i) and b[0..j); row 0 and column 0 stay 0.
  for (let i = 1; i <= alen; i++) {
    const ai = a[i - 1];
    const row = i * width;
    const up = row - width;
    for (let j = 1; j <= blen; j++) {
      if (ai === b[j - 1]) {
        t[row + j] = t[up + j - 1]! + 1;
      } else {
        const left = t[row + j - 1]!;
        const above = t[up + j]!;
        t[row + j] = above > left ? above : left;
      }
    }
  }
  const total = t[alen * width + blen]!;
  if (wantLen) return total;

  // Walk back from the end, collecting the subsequence and, for IDX, the
  // ranges of contiguous matches in the order the walk meets them (last first).
  const out = new Uint8Array(total);
  const matches: Reply[] = [];
  const minLen = Number(minMatchLen);
  let k = total;
  let aStart = alen; // alen: no range open
  let aEnd = 0;
  let bStart = 0;
  let bEnd = 0;
  let i = alen;
  let j = blen;
  while (i > 0 && j > 0) {
    let emit = false;
    if (a[i - 1] === b[j - 1]) {
      out[--k] = a[i - 1]!;
      if (aStart === alen) {
        aStart = aEnd = i - 1;
        bStart = bEnd = j - 1;
      } else if (aStart === i && bStart === j) {
        aStart--;
        bStart--;
      } else {
        emit = true;
      }
      if (aStart === 0 || bStart === 0) emit = true;
      i--;
      j--;
    } else {
      if (t[(i - 1) * width + j]! > t[i * width + j - 1]!) i--;
      else j--;
      if (aStart !== alen) emit = true;
    }
    if (emit) {
      const len = aEnd - aStart + 1;
      if (wantIdx && (minLen === 0 || len >= minLen)) {
        const m: Reply[] = [
          [aStart, aEnd],
          [bStart, bEnd],
        ];
        if (withMatchLen) m.push(len);
        matches.push(m);
      }
      aStart = alen;
    }
  }
  if (wantIdx) return new MapReply(['matches', matches, 'len', total]);
  return bytesFromArray(out);
}
