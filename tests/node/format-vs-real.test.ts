/**
 * Our redis-cli formatting against the real redis-cli: for each command, the
 * real redis-cli prints the real server's reply, and our formatter prints the
 * same reply (its raw RESP bytes, parsed); both outputs must be identical,
 * byte for byte, in TTY mode (--no-raw) and in --raw mode, RESP2 and RESP3.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReplyParser } from '../../emulator/resp/reply-parser.js';
import type { Reply } from '../../emulator/resp/reply.js';
import { formatReply, UnknownReplyTypeError, type OutputMode } from '../../emulator/redis-cli/format.js';
import { printsVerbatim } from '../../emulator/redis-cli/command-rules.js';
import { RawConnection, startRealRedis, type RealRedis } from '../support/real-redis.js';
import { cliSkipNotice, HAVE_REAL_CLI, runRealCli } from './real-cli.js';

/** Keys with awkward contents, written over RESP so any byte can go in. */
const SETUP: string[][] = [
  ['SET', 'plain', 'hello world'],
  ['SET', 'bin', '\x00\xff"\\\n\r\t\x07\x08\x1b\x7f quote\'d \x01'],
  // "héllo 日本" as UTF-8 bytes.
  ['SET', 'unicode', 'h\xc3\xa9llo \xe6\x97\xa5\xe6\x9c\xac'],
  ['SET', 'empty', ''],
  ['SET', 'num', '42'],
  ['SET', 'neg', '-9223372036854775808'],
  ['SET', 'nul\x00key', 'v'],
  ['RPUSH', 'list', 'a', 'b', '', 'c d', '\x00', 'f', 'g', 'h', 'i', 'j', 'k', 'l'],
  ['RPUSH', 'big', ...Array.from({ length: 105 }, (_, i) => `e${i}`)],
  ['RPUSH', 'one', 'only'],
  ['HSET', 'hash', 'f1', 'v1', 'f2', '\xff'],
  ['HSET', 'hash1', 'only', 'one'],
  ['SADD', 'set', 'x'],
  ['SADD', 'intset', '1', '2', '3'],
  ['ZADD', 'zset', '1.5', 'a', 'inf', 'b', '-2', 'c', '0.1', 'd'],
];

/** Commands whose replies cover every shape redis-cli prints. */
const CASES: Array<{ args: string[]; resp3?: boolean }> = [
  { args: ['PING'] },
  { args: ['SET', 'k', 'v'] },
  { args: ['GET', 'plain'] },
  { args: ['GET', 'bin'] },
  { args: ['GET', 'unicode'] },
  { args: ['GET', 'empty'] },
  { args: ['GET', 'nokey'] },
  { args: ['GET', 'nokey'], resp3: true },
  { args: ['INCRBY', 'num', '0'] },
  { args: ['INCRBY', 'neg', '0'] },
  { args: ['INCRBY', 'neg', '0'], resp3: true },
  { args: ['TTL', 'nokey'] },
  { args: ['LRANGE', 'list', '0', '-1'] },
  { args: ['LRANGE', 'big', '0', '-1'] },
  { args: ['LRANGE', 'one', '0', '-1'] },
  { args: ['LRANGE', 'nolist', '0', '-1'] },
  { args: ['KEYS', 'nul*'] },
  { args: ['HGETALL', 'hash'] },
  { args: ['HGETALL', 'hash'], resp3: true },
  { args: ['HGETALL', 'hash1'], resp3: true },
  { args: ['HGETALL', 'nohash'], resp3: true },
  { args: ['SMEMBERS', 'set'], resp3: true },
  { args: ['SMEMBERS', 'intset'], resp3: true },
  { args: ['SMEMBERS', 'noset'], resp3: true },
  { args: ['ZSCORE', 'zset', 'a'] },
  { args: ['ZSCORE', 'zset', 'a'], resp3: true },
  { args: ['ZSCORE', 'zset', 'b'], resp3: true },
  { args: ['ZSCORE', 'zset', 'd'], resp3: true },
  { args: ['ZRANGE', 'zset', '0', '-1', 'WITHSCORES'] },
  { args: ['ZRANGE', 'zset', '0', '-1', 'WITHSCORES'], resp3: true },
  { args: ['SCAN', '0', 'MATCH', 'l*'] },
  { args: ['EXISTS', 'plain', 'nokey'] },
  { args: ['NOSUCHCOMMAND', 'a', 'b'] },
  { args: ['GET'] },
  { args: ['INCR', 'plain'] },
  { args: ['LPUSH', 'plain', 'x'] },
  { args: ['EVAL', "return {1,{2,{3,'a'}},{},'x',false}", '0'] },
  { args: ['EVAL', "return {1,{2,{3,'a'}},{},'x',false}", '0'], resp3: true },
  { args: ['EVAL', "redis.setresp(3); return {map={a=1,b={1,2}}}", '0'], resp3: true },
  { args: ['EVAL', "redis.setresp(3); return {map={a={x={1,{}}}}}", '0'], resp3: true },
  { args: ['EVAL', "redis.setresp(3); return {map={a={1}}}", '0'], resp3: true },
  { args: ['EVAL', "redis.setresp(3); return {set={a=true}}", '0'], resp3: true },
  { args: ['EVAL', "redis.setresp(3); return {double=3.5}", '0'], resp3: true },
  { args: ['EVAL', "return {err='MYERR custom'}", '0'] },
  { args: ['EVAL', "return {ok='FINE'}", '0'] },
  { args: ['EVAL', "return redis.status_reply('a\\0b')", '0'] },
  { args: ['DEBUG', 'PROTOCOL', 'string'], resp3: true },
  { args: ['DEBUG', 'PROTOCOL', 'integer'], resp3: true },
  { args: ['DEBUG', 'PROTOCOL', 'double'], resp3: true },
  { args: ['DEBUG', 'PROTOCOL', 'null'], resp3: true },
  { args: ['DEBUG', 'PROTOCOL', 'array'], resp3: true },
  { args: ['DEBUG', 'PROTOCOL', 'set'], resp3: true },
  { args: ['DEBUG', 'PROTOCOL', 'map'], resp3: true },
  { args: ['DEBUG', 'PROTOCOL', 'verbatim'], resp3: true },
  { args: ['DEBUG', 'PROTOCOL', 'verbatim'] },
  { args: ['DEBUG', 'PROTOCOL', 'true'], resp3: true },
  { args: ['DEBUG', 'PROTOCOL', 'false'], resp3: true },
  { args: ['DEBUG', 'PROTOCOL', 'true'] },
  { args: ['DEBUG', 'PROTOCOL', 'bignum'] },
  { args: ['DEBUG', 'PROTOCOL', 'bignum'], resp3: true },
  { args: ['CONFIG', 'GET', 'maxmemory*'], resp3: true },
  { args: ['CONFIG', 'GET', 'nosuchparam'], resp3: true },
  { args: ['COMMAND', 'INFO', 'get', 'nosuchcommand'] },
  { args: ['COMMAND', 'INFO', 'get'], resp3: true },
  { args: ['COMMAND', 'DOCS', 'set'], resp3: true },
  { args: ['MEMORY', 'DOCTOR'] },
  { args: ['MEMORY', 'DOCTOR'], resp3: true },
  { args: ['BLPOP', 'nolist', '0.01'] },
  { args: ['BLPOP', 'nolist', '0.01'], resp3: true },
  { args: ['ECHO', 'two\nlines'] },
];

/** The output our formatter gives for a reply, or the error redis-cli would print and die with. */
function ours(args: string[], reply: Reply, mode: OutputMode): { stdout: string; stderr: string } {
  try {
    return { stdout: formatReply(reply, mode, printsVerbatim(args)), stderr: '' };
  } catch (e) {
    if (e instanceof UnknownReplyTypeError) return { stdout: '', stderr: e.message + '\n' };
    throw e;
  }
}

describe.skipIf(!HAVE_REAL_CLI)(HAVE_REAL_CLI ? 'redis-cli formatting' : `redis-cli formatting (${cliSkipNotice()})`, () => {
  let real: RealRedis;
  let conn2: RawConnection;
  let conn3: RawConnection;

  beforeAll(async () => {
    real = await startRealRedis();
    conn2 = await RawConnection.open(real.port);
    conn3 = await RawConnection.open(real.port);
    for (const cmd of SETUP) await conn2.command(cmd);
    await conn3.command(['HELLO', '3']);
  });

  afterAll(async () => {
    conn2?.close();
    conn3?.close();
    await real?.stop();
  });

  for (const { args, resp3 } of CASES) {
    for (const mode of ['tty', 'raw'] as const) {
      const name = `${mode}${resp3 ? ' RESP3' : ''}: ${args.join(' ')}`;
      it(name, async () => {
        const raw = await (resp3 ? conn3 : conn2).commandRaw(args);
        const parser = new ReplyParser();
        parser.feed(raw);
        const reply = parser.next()!;
        const flags = [mode === 'tty' ? '--no-raw' : '--raw', '-p', String(real.port), ...(resp3 ? ['-3'] : [])];
        const theirs = runRealCli([...flags, ...args]);
        const mine = ours(args, reply, mode);
        expect(JSON.stringify(mine.stdout)).toBe(JSON.stringify(theirs.stdout));
        expect(mine.stderr).toBe(theirs.stderr);
      });
    }
  }
});
