/**
 * Randomized differential testing of what a primary propagates: random
 * commands of every data type (random-commands.ts) with SELECT mixed in,
 * and the commands whose propagated form differs from what was sent,
 * run on `npm run server` and on redis-server, each with a raw replica
 * attached by SYNC; the command stream each replica receives must agree
 * byte for byte, run by run (the form a write takes in the stream: PXAT for
 * EX, SET KEEPTTL for INCRBYFLOAT, DEL for an expiry in the past, the
 * SELECTs and MULTI/EXEC around them). Absolute times in the stream come
 * from each server's clock and compare as "a time". A failure prints the
 * seed; rerun it with FC_SEED=<seed> (and FC_RUNS for more runs).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { HAVE_REAL_REDIS, skipNotice } from './availability.js';
import { compareReplies } from './compare.js';
import { randomRunOptions } from './fc-options.js';
import { randomCommand, type RandomCommand } from './random-commands.js';
import { startEmulator, startReal, type Server } from './replica-pairs.js';
import { RawConnection } from '../support/real-redis.js';
import { Peer } from '../support/peer.js';

const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : 20261129;
const RUNS = process.env.FC_RUNS ? Number(process.env.FC_RUNS) : 60;

interface Side {
  name: string;
  server: Server;
  client: RawConnection;
  replica: Peer;
  /** How much of the replica's bytes earlier runs took. */
  read: number;
}

const exact = { kind: 'exact' } as const;
const cmd = (...parts: Array<fc.Arbitrary<string> | string>): fc.Arbitrary<RandomCommand> =>
  fc.tuple(...parts.map((p) => (typeof p === 'string' ? fc.constant(p) : p))).map((argv) => ({ argv, compare: exact }));
const key = fc.constantFrom('a', 'b', 'c');
const value = fc.constantFrom('1', 'x', '2.5', '');
// Times far from now (year 2100) or long past, so that nothing expires during a run.
const seconds = fc.constantFrom('100', '0', '-1', '4102444800', 'x');
const ms = fc.constantFrom('100000', '0', '-5', '4102444800000');
const pastMs = fc.constantFrom('1', '100000', '4102444800000');

/** Commands whose propagated form is not the command as sent, or that propagate nothing. */
const rewritten: fc.Arbitrary<RandomCommand> = fc.oneof(
  cmd('SELECT', fc.constantFrom('0', '1', '9')),
  cmd('SETEX', key, seconds, value),
  cmd('PSETEX', key, ms, value),
  cmd('SET', key, value, fc.constantFrom('EX', 'PX', 'EXAT', 'PXAT'), fc.constantFrom('100', '4102444800', '4102444800000', '0')),
  cmd('SET', key, value, 'KEEPTTL', 'GET'),
  cmd('GETEX', key, fc.constantFrom('EX', 'PX', 'EXAT', 'PXAT'), fc.constantFrom('100000', '4102444800', '4102444800000', '0')),
  cmd('GETEX', key, fc.constantFrom('EXAT', 'PXAT'), '1'),
  cmd('GETEX', key, fc.constantFrom('PERSIST', 'EX')),
  cmd('EXPIRE', key, seconds),
  cmd('EXPIREAT', key, fc.constantFrom('1', '4102444800', '0', '-1')),
  cmd('PEXPIRE', key, ms),
  cmd('PEXPIREAT', key, pastMs),
  cmd('INCRBYFLOAT', key, fc.constantFrom('1.5', '0', '-2', '1e3', '3.0000000001')),
  cmd('HINCRBYFLOAT', key, 'f', fc.constantFrom('1.5', '0', '1e3')),
  cmd('ZINCRBY', key, fc.constantFrom('1.5', '-inf', '0'), 'm'),
  cmd('LMPOP', '2', key, key, fc.constantFrom('LEFT', 'RIGHT'), 'COUNT', fc.constantFrom('1', '5')),
  cmd('ZMPOP', '2', key, key, fc.constantFrom('MIN', 'MAX'), 'COUNT', fc.constantFrom('1', '5')),
  cmd(fc.constantFrom('BLPOP', 'BRPOP', 'BZPOPMIN', 'BZPOPMAX'), key, key, '0.01'),
  cmd('BLMOVE', key, key, fc.constantFrom('LEFT', 'RIGHT'), fc.constantFrom('LEFT', 'RIGHT'), '0.01'),
  cmd('BRPOPLPUSH', key, key, '0.01'),
  cmd('BLMPOP', '0.01', '1', key, 'LEFT', 'COUNT', '2'),
  cmd('BZMPOP', '0.01', '1', key, 'MAX'),
  cmd('SORT', key, fc.constantFrom('ALPHA', 'DESC'), 'STORE', key),
  cmd('SORT', key, 'STORE', key),
  cmd('PFADD', key, fc.constantFrom('x', 'y')),
  cmd('PFCOUNT', key),
  cmd('PFMERGE', key, key),
  cmd(fc.constantFrom('MOVE'), key, fc.constantFrom('1', '0')),
  cmd('SWAPDB', fc.constantFrom('0', '1'), fc.constantFrom('1', '9')),
  cmd(fc.constantFrom('FLUSHDB', 'UNLINK'), key),
  cmd('UNLINK', key, key),
  cmd('GETDEL', key),
  cmd('RENAME', key, key),
  cmd('SETRANGE', key, fc.constantFrom('0', '3'), fc.constantFrom('', 'zz')),
  cmd('BITFIELD', key, 'GET', 'u8', '0'),
  cmd('BITFIELD', key, 'INCRBY', 'u2', '0', '5', 'OVERFLOW', 'FAIL', 'INCRBY', 'u2', '0', '5'),
  cmd('HSET', key, 'f', value),
  cmd('RPUSH', key, value, value),
  cmd('ZADD', key, fc.constantFrom('1', '2.50', 'INCR'), fc.constantFrom('m', '3')),
  cmd('SADD', key, value),
);
/**
 * random-commands.ts's relative times of a few ms or seconds would expire
 * during a run over TCP, at a moment each server's own clock decides:
 * they are made long.
 */
function lasting(c: RandomCommand): RandomCommand {
  const argv = c.argv.map((a, i) => (i > 0 && /^(EX|PX)$/i.test(c.argv[i - 1]!) && /^[1-9]\d?$/.test(a) ? `${a}00000` : a));
  return { ...c, argv };
}
const step = fc.oneof({ weight: 6, arbitrary: randomCommand.map(lasting) }, { weight: 6, arbitrary: rewritten });

/** The stream's commands as argument lists (it holds nothing but arrays of bulk strings). */
function commandsOf(stream: string): string[][] {
  const out: string[][] = [];
  let at = 0;
  const line = (): string => {
    const end = stream.indexOf('\r\n', at);
    const text = stream.slice(at, end);
    at = end + 2;
    return text;
  };
  while (at < stream.length) {
    const head = line();
    if (!head.startsWith('*')) throw new Error(`not a command in the stream: ${JSON.stringify(head)}`);
    const argv: string[] = [];
    for (let n = Number(head.slice(1)); n > 0; n--) {
      const len = Number(line().slice(1));
      argv.push(stream.slice(at, at + len));
      at += len + 2;
    }
    out.push(argv);
  }
  return out;
}

/**
 * A unix time in ms that the server worked out (now plus a relative time)
 * reads as "a time", since the two servers' clocks differ; one that was
 * sent as it is stays.
 */
function masked(argv: string[], sent: ReadonlySet<string>): string {
  return JSON.stringify(argv.map((a) => (/^\d{12,}$/.test(a) && !sent.has(a) ? '<unix ms>' : a)));
}

describe.skipIf(!HAVE_REAL_REDIS)(HAVE_REAL_REDIS ? 'randomized propagation' : `randomized propagation (${skipNotice()})`, () => {
  const sides: Side[] = [];
  beforeAll(async () => {
    for (const [name, start] of [['real', startReal], ['emulator', startEmulator]] as const) {
      const server = await start([]);
      const replica = await Peer.open(server.port);
      replica.command('SYNC');
      // "$<len>\r\n" and the RDB (SYNC has no EOF capability, so the file is sent from disk).
      let rdbEnd = -1;
      await replica.until(() => {
        const m = /^\n*\$(\d+)\r\n/.exec(replica.bytes);
        if (m !== null && replica.bytes.length >= m[0].length + Number(m[1])) rdbEnd = m[0].length + Number(m[1]);
        return rdbEnd >= 0;
      });
      if (rdbEnd < 0) throw new Error(`${name}: no RDB after SYNC: ${JSON.stringify(replica.bytes.slice(0, 200))}`);
      sides.push({ name, server, client: await RawConnection.open(server.port), replica, read: rdbEnd });
    }
  }, 30_000);
  afterAll(async () => {
    for (const s of sides) {
      s.client.close();
      s.replica.close();
      await s.server.stop();
    }
  });

  it(`random writes reach a replica in the same form as from redis-server (seed ${SEED}, ${RUNS} runs)`, async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 30 }), async (cmds) => {
        run++;
        const transcript: string[] = [];
        for (const c of cmds) {
          const [a, b] = await Promise.all(sides.map((s) => s.client.commandRaw(c.argv)));
          transcript.push(`${JSON.stringify(c.argv)} -> ${JSON.stringify(a)}`);
          const why = compareReplies(a!, b!, c.compare);
          if (why) throw new Error(`${why}\n  command:  ${JSON.stringify(c.argv)}\n  real:     ${JSON.stringify(a)}\n  emulator: ${JSON.stringify(b)}\n  after:\n    ${transcript.slice(0, -1).join('\n    ')}`);
        }
        const sent = new Set(cmds.flatMap((c) => c.argv));
        // Leave no transaction open, then mark the run's end in the stream itself.
        const mark = ['PUBLISH', 'end-of-run', String(run)];
        const streams = await Promise.all(
          sides.map(async (s) => {
            await s.client.commandRaw(['DISCARD']);
            await s.client.commandRaw(['FLUSHALL']);
            await s.client.commandRaw(mark);
            const tail = `$${String(run).length}\r\n${run}\r\n`;
            await s.replica.until(() => s.replica.bytes.endsWith(tail));
            const stream = s.replica.bytes.slice(s.read);
            s.read = s.replica.bytes.length;
            return commandsOf(stream).map((argv) => masked(argv, sent));
          }),
        );
        const [real, emulator] = streams as [string[], string[]];
        const n = Math.max(real.length, emulator.length);
        for (let i = 0; i < n; i++) {
          if (real[i] !== emulator[i]) {
            throw new Error(
              `the streams differ at command ${i + 1}\n  real:     ${real[i]}\n  emulator: ${emulator[i]}\n  real stream:\n    ${real.join('\n    ')}\n  emulator stream:\n    ${emulator.join('\n    ')}\n  commands:\n    ${transcript.join('\n    ')}`,
            );
          }
        }
      }),
      randomRunOptions('Randomized propagation test', SEED, RUNS),
    );
  }, 120_000);
});
