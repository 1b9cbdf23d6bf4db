import { errorReply, type Reply } from '../resp/reply.js';
import { opt } from './args.js';
import { SYNTAX_ERROR } from '../server/errors.js';
import { rangeLongArg } from './list-args.js';

const NUMKEYS = errorReply('numkeys should be greater than 0');
const COUNT = errorReply('count should be greater than 0');

export interface MpopArgs<W> {
  keys: string[];
  where: W;
  count: number;
}

/**
 * The arguments LMPOP, BLMPOP, ZMPOP and BZMPOP share, checked in Redis's
 * order (src/t_list.c lmpopGenericCommand, src/t_zset.c
 * zmpopGenericCommand): `numkeys key [key ...] <where> [COUNT count]`,
 * starting at `numkeysAt`. `where` reads LEFT/RIGHT or MIN/MAX, null for
 * anything else.
 */
export function parseMpopArgs<W>(argv: readonly string[], numkeysAt: number, where: (arg: string) => W | null): MpopArgs<W> | Reply {
  const numkeys = rangeLongArg(argv[numkeysAt]!, 1);
  if (numkeys === null) return NUMKEYS;
  const whereAt = numkeysAt + 1 + numkeys;
  if (whereAt >= argv.length) return SYNTAX_ERROR;
  const w = where(argv[whereAt]!);
  if (w === null) return SYNTAX_ERROR;
  let count = -1;
  for (let j = whereAt + 1; j < argv.length; j++) {
    if (count === -1 && opt(argv[j]!) === 'count' && j < argv.length - 1) {
      const v = rangeLongArg(argv[++j]!, 1);
      if (v === null) return COUNT;
      count = v;
    } else {
      return SYNTAX_ERROR;
    }
  }
  return { keys: argv.slice(numkeysAt + 1, whereAt), where: w, count: count === -1 ? 1 : count };
}

export function isMpopArgs<W>(x: MpopArgs<W> | Reply): x is MpopArgs<W> {
  return typeof x === 'object' && x !== null && !Array.isArray(x) && 'keys' in x;
}

/** MIN or MAX, as a "pop the highest" flag. */
export function zsetEnd(arg: string): boolean | null {
  const w = opt(arg);
  return w === 'max' ? true : w === 'min' ? false : null;
}
