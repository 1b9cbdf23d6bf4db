import { StringObject, stringOf } from '../keyspace/values.js';
import { bytesFromArray } from '../resp/bytes.js';
import { errorReply, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import { NOTIFY, notifyKeyspaceEvent } from '../server/notify.js';
import { opt } from './args.js';
import { SYNTAX_ERROR, WRONGTYPE } from '../server/errors.js';
import { deleteKey } from './lookup.js';
import { isStringValue } from './string-access.js';

const AND = 0;
const OR = 1;
const XOR = 2;
const NOT = 3;

const OPS = new Map<string, number>([
  ['and', AND],
  ['or', OR],
  ['xor', XOR],
  ['not', NOT],
]);

const NOT_SINGLE_SOURCE = errorReply('BITOP NOT must be called with a single source key.');

/**
 * BITOP AND|OR|XOR|NOT destkey key [key ...] (src/bitops.c bitopCommand).
 * Missing sources are empty strings and shorter ones are padded with zero
 * bytes. The result, as long as the longest source, replaces destkey (and
 * its TTL) as a raw string; an empty result deletes destkey instead.
 * Replies with the result's length.
 */
export function bitop(c: Client, argv: string[]): Reply {
  const op = OPS.get(opt(argv[1]!));
  if (op === undefined) return SYNTAX_ERROR;
  if (op === NOT && argv.length !== 4) return NOT_SINGLE_SOURCE;
  const target = argv[2]!;
  const sources: string[] = new Array<string>(argv.length - 3);
  let maxLength = 0;
  for (let j = 3; j < argv.length; j++) {
    const v = c.db.lookupRead(argv[j]!);
    let s = '';
    if (v !== undefined) {
      if (!isStringValue(v)) return WRONGTYPE;
      s = stringOf(v);
    }
    sources[j - 3] = s;
    if (s.length > maxLength) maxLength = s.length;
  }
  if (maxLength === 0) {
    if (deleteKey(c, target)) {
      notifyKeyspaceEvent(c.server, NOTIFY.GENERIC, 'del', target, c.db.id);
      c.server.dirty++;
    }
    return 0;
  }
  const result = combine(op, sources, maxLength);
  // Redis's setKey looks the destination up for writing first, which
  // expires it (and propagates its deletion) if its time has come.
  c.db.lookupWrite(target);
  c.db.setKey(target, new StringObject(bytesFromArray(result), 'raw'));
  notifyKeyspaceEvent(c.server, NOTIFY.STRING, 'set', target, c.db.id);
  c.server.dirty++;
  return maxLength;
}

/** The bytes of `op` applied to the sources, each taken as zero-padded to `length` bytes. */
function combine(op: number, sources: string[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  const first = sources[0]!;
  for (let i = 0; i < first.length; i++) out[i] = first.charCodeAt(i);
  if (op === NOT) {
    for (let i = 0; i < length; i++) out[i] = ~out[i]! & 0xff;
    return out;
  }
  for (let k = 1; k < sources.length; k++) {
    const s = sources[k]!;
    const n = s.length;
    if (op === AND) {
      for (let i = 0; i < n; i++) out[i] &= s.charCodeAt(i);
      out.fill(0, n);
    } else if (op === OR) {
      for (let i = 0; i < n; i++) out[i] |= s.charCodeAt(i);
    } else {
      for (let i = 0; i < n; i++) out[i] ^= s.charCodeAt(i);
    }
  }
  return out;
}
