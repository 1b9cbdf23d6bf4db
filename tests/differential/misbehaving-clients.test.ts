/**
 * Misbehaving clients beside well-behaved ones, against the Node server
 * (`npm run server`'s code) with limits set: fast-check mixes clients that
 * send malformed RESP, stop half-way through a command, announce huge bulk
 * lengths, vanish while their reply is on its way, or never read, with
 * clients that write and read their own keys. The well-behaved clients get
 * exactly their replies, the server keeps answering, nothing of theirs
 * changes, and no client holds more unsent output than its class's hard
 * limit. Where redis-server 7.0.15 is installed, every misbehaving client
 * whose fate does not depend on the kernel's buffers gets the same bytes and
 * the same closed connection from both. A failure prints the seed; rerun it
 * with FC_SEED=<seed>, and MISBEHAVE_RUNS=<n> for more runs.
 */
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runServer, type RunningServer } from '../../src/node/server-main.js';
import { freePort, RawConnection, startRealRedis, type RealRedis } from '../support/real-redis.js';
import { HAVE_REAL_REDIS, skipNotice } from './availability.js';
import { randomRunOptions } from './fc-options.js';
import { Peer } from '../support/peer.js';
import { StatusReply } from '../../emulator/resp/reply.js';

const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : 20261127;
const RUNS = process.env.MISBEHAVE_RUNS ? Number(process.env.MISBEHAVE_RUNS) : 3;

/** The limits both servers run with: a small normal-class hard limit, so a client that never reads is closed soon. */
const LIMITS = ['--client-output-buffer-limit', 'normal 1mb 0 0', '--maxclients', '64'];
const HARD_LIMIT_BYTES = 1024 * 1024;
/** A value big enough that a few replies of it fill the socket's buffers and then the server's. */
const BIG_BYTES = 256 * 1024;

if (!HAVE_REAL_REDIS) console.warn(`\n!!! misbehaving clients: ${skipNotice()}; the emulator runs alone\n`);

const command = (...argv: string[]): string => `*${argv.length}\r\n${argv.map((a) => `$${a.length}\r\n${a}\r\n`).join('')}`;

/** What a misbehaving client does. */
type Misdeed =
  | { kind: 'malformed'; bytes: string }
  | { kind: 'half'; bytes: string; cut: number }
  | { kind: 'vanish-mid-reply'; gets: number }
  | { kind: 'never-read'; gets: number };

/** Frames Redis refuses (processMultibulkBuffer / processInlineBuffer): each is answered with a protocol error and closed. */
const MALFORMED = [
  '*abc\r\n',
  '*1\r\n$abc\r\n',
  '*1\r\n$2147483648\r\n',
  '*2147483648\r\n',
  '*1\r\nX\r\n',
  '"unbalanced\r\n',
  '*2\r\n$3\r\nGET\r\n$-5\r\n',
];

const misdeed: fc.Arbitrary<Misdeed> = fc.oneof(
  fc.constantFrom(...MALFORMED).map((bytes) => ({ kind: 'malformed' as const, bytes })),
  fc
    .tuple(fc.constantFrom(command('SET', 'junk:half', 'value'), command('GET', 'junk:big'), '*3\r\n$3\r\nSET\r\n$9\r\njunk:huge\r\n$100000000\r\n'), fc.double({ min: 0, max: 1, noNaN: true }))
    .map(([bytes, at]) => ({ kind: 'half' as const, bytes, cut: 1 + Math.floor((bytes.length - 2) * at) })),
  fc.integer({ min: 1, max: 8 }).map((gets) => ({ kind: 'vanish-mid-reply' as const, gets })),
  fc.integer({ min: 8, max: 24 }).map((gets) => ({ kind: 'never-read' as const, gets })),
);

/** A well-behaved client's step on its own keys. */
type Step = { op: 'set'; value: string } | { op: 'incr' } | { op: 'append'; value: string } | { op: 'get' };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.string({ maxLength: 12 }).map((value) => ({ op: 'set' as const, value })),
  fc.constant({ op: 'incr' as const }),
  fc.string({ maxLength: 12 }).map((value) => ({ op: 'append' as const, value })),
  fc.constant({ op: 'get' as const }),
);

interface Side {
  name: 'real' | 'emulator';
  port: number;
  stop(): Promise<void>;
}

async function startEmulator(): Promise<Side> {
  const dir = mkdtempSync(join(tmpdir(), 'rw-misbehave-'));
  const port = await freePort();
  let log = '';
  const cwd = process.cwd();
  const r: RunningServer | number = await runServer(['--port', String(port), '--dir', dir, '--save', '', ...LIMITS], {
    stdout: (t) => (log += t),
  }).finally(() => process.chdir(cwd));
  if (typeof r === 'number') throw new Error(`npm run server did not start:\n${log}`);
  return {
    name: 'emulator',
    port,
    stop: async () => {
      await r.shutdown();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function startReal(): Promise<Side> {
  const r: RealRedis = await startRealRedis(LIMITS);
  return { name: 'real', port: r.port, stop: () => r.stop() };
}

/** What one misbehaving client saw: the bytes it got and whether the server closed it. */
interface Fate {
  what: string;
  bytes: string;
  closedByServer: boolean;
}

/** A misbehaving client's outcome: the fate judged on both servers, or null, and a connection left open until the checks are done. */
interface Outcome {
  fate: Fate | null;
  open?: Peer;
}

/** One round trip on a connection of its own: by then the server has read what was sent before it. */
async function roundTrip(port: number): Promise<void> {
  const c = await RawConnection.open(port);
  await c.command(['PING']);
  c.close();
}

async function misbehave(port: number, d: Misdeed): Promise<Outcome> {
  const p = await Peer.open(port);
  switch (d.kind) {
    case 'malformed': {
      p.send(d.bytes);
      await p.until(() => false, 30_000);
      return { fate: { what: JSON.stringify(d.bytes), bytes: p.bytes, closedByServer: p.closed } };
    }
    case 'half': {
      // Half a command, then the client goes away: nothing is answered and nothing runs.
      p.send(d.bytes.slice(0, d.cut));
      await roundTrip(port);
      const fate = { what: `half ${JSON.stringify(d.bytes.slice(0, d.cut))}`, bytes: p.bytes, closedByServer: p.closed };
      p.close();
      return { fate };
    }
    case 'vanish-mid-reply': {
      p.send(command('GET', 'junk:big').repeat(d.gets));
      await p.until(() => p.bytes.length > 0, 30_000);
      p.close();
      return { fate: null };
    }
    case 'never-read': {
      // How much the kernel takes before the server holds the rest varies
      // with the machine, so only the server's side is judged (omem below).
      p.socket.pause();
      p.send(command('GET', 'junk:big').repeat(d.gets));
      await roundTrip(port);
      return { fate: null, open: p };
    }
  }
}

describe(HAVE_REAL_REDIS ? 'misbehaving clients beside well-behaved ones, and beside redis-server 7.0.15' : 'misbehaving clients beside well-behaved ones', () => {
  const sides: Side[] = [];
  beforeAll(async () => {
    sides.push(await startEmulator());
    if (HAVE_REAL_REDIS) sides.push(await startReal());
    for (const s of sides) {
      const c = await RawConnection.open(s.port);
      await c.command(['SET', 'junk:big', 'b'.repeat(BIG_BYTES)]);
      c.close();
    }
  }, 60_000);
  afterAll(async () => {
    for (const s of sides) await s.stop();
  });

  it(`keeps answering the well-behaved clients exactly, and treats the others as Redis does (seed ${SEED}, ${RUNS} runs)`, async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(misdeed, { minLength: 1, maxLength: 8 }), fc.array(fc.array(step, { minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 3 }), async (misdeeds, good) => {
        run++;
        const fates: Fate[][] = [];
        for (const side of sides) {
          const prefix = `run${run}:`;
          // The well-behaved clients and the misbehaving ones at the same time.
          const goodDone = good.map(async (steps, i) => {
            const c = await RawConnection.open(side.port);
            const key = `${prefix}good${i}`;
            const counter = `${prefix}count${i}`;
            let value: string | null = null;
            let count = 0;
            for (const s of steps) {
              if (s.op === 'set') {
                expect(await c.command(['SET', key, s.value])).toEqual(new StatusReply('OK'));
                value = s.value;
              } else if (s.op === 'incr') {
                expect(await c.command(['INCR', counter])).toBe(++count);
              } else if (s.op === 'append') {
                value = (value ?? '') + s.value;
                expect(await c.command(['APPEND', key, s.value])).toBe(value.length);
              } else {
                expect(await c.command(['GET', key])).toBe(value);
              }
            }
            c.close();
            return { key, value, counter, count };
          });
          const badDone = misdeeds.map((d) => misbehave(side.port, d));
          const kept = await Promise.all(goodDone);
          const seen = await Promise.all(badDone);
          // The server still answers, the good clients' keys hold what they wrote,
          // and no client holds more unsent output than the hard limit allows.
          const admin = await RawConnection.open(side.port);
          expect([side.name, await admin.command(['PING'])]).toEqual([side.name, new StatusReply('PONG')]);
          for (const k of kept) {
            expect([k.key, await admin.command(['GET', k.key])]).toEqual([k.key, k.value]);
            expect([k.counter, await admin.command(['GET', k.counter])]).toEqual([k.counter, k.count === 0 ? null : String(k.count)]);
          }
          for (const line of String(await admin.command(['CLIENT', 'LIST'])).split('\n')) {
            const omem = Number(/ omem=(\d+)/.exec(line)?.[1] ?? 0);
            expect([side.name, line.slice(0, 60), omem <= HARD_LIMIT_BYTES + BIG_BYTES]).toEqual([side.name, line.slice(0, 60), true]);
          }
          expect(await admin.command(['EXISTS', 'junk:half', 'junk:huge'])).toBe(0);
          for (const o of seen) o.open?.close();
          admin.close();
          const judged = seen.flatMap((o) => (o.fate === null ? [] : [o.fate]));
          for (const f of judged) {
            if (f.what.startsWith('half')) expect([f.what, f.bytes, f.closedByServer]).toEqual([f.what, '', false]);
            else expect([f.what, f.bytes.startsWith('-ERR Protocol error: '), f.closedByServer]).toEqual([f.what, true, true]);
          }
          fates.push(judged);
        }
        if (fates.length === 2) expect(fates[0]).toEqual(fates[1]);
      }),
      randomRunOptions('misbehaving clients', SEED, RUNS),
    );
  }, 300_000);
});
