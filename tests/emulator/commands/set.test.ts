import { describe, expect, it } from 'vitest';
import { SetValue } from '../../../emulator/keyspace/values.js';
import { ErrorReply, SetReply, type Reply } from '../../../emulator/resp/reply.js';
import type { RedisServer } from '../../../emulator/server/server.js';
import { createServer } from '../../../emulator/process/create-server.js';
import type { Client } from '../../../emulator/server/client.js';
import { ManualClock } from '../../../emulator/sim/clock.js';
import { Random } from '../../../emulator/sim/random.js';
import { MAX_RANDOM_REPLY_ELEMENTS } from '../../../emulator/commands/set-random.js';
import { compareIntStrings, membersInOrder, randomMember, setAdd, setRemove } from '../../../emulator/commands/set-type.js';

function start(seed = 1): { server: RedisServer; c: Client; run: (...argv: string[]) => Reply } {
  const server = createServer({ clock: new ManualClock(), seed });
  const c = server.connect();
  return { server, c, run: (...argv) => server.execute(c, argv) };
}

function items(r: Reply): string[] {
  if (r instanceof SetReply) return r.items as string[];
  if (Array.isArray(r)) return r as string[];
  throw new Error(`not a collection: ${String(r)}`);
}

function range(from: number, to: number): string[] {
  const out: string[] = [];
  for (let i = from; i <= to; i++) out.push(String(i));
  return out;
}

describe('set type helpers', () => {
  it('orders int64 strings numerically, also beyond 2^53', () => {
    const xs = ['9007199254740993', '-1', '0', '9007199254740992', '-9223372036854775808', '9223372036854775807', '10', '9', '-10', '-9'];
    const sorted = [...xs].sort(compareIntStrings);
    expect(sorted).toEqual(['-9223372036854775808', '-10', '-9', '-1', '0', '9', '10', '9007199254740992', '9007199254740993', '9223372036854775807']);
    const big = [...xs].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0));
    expect(sorted).toEqual(big);
  });

  it('an intset becomes a hashtable at the first non-integer and never converts back', () => {
    const s = new SetValue('intset');
    expect(setAdd(s, '1', 512)).toBe(true);
    expect(setAdd(s, '1', 512)).toBe(false);
    expect(s.encoding).toBe('intset');
    expect(setAdd(s, '01', 512)).toBe(true);
    expect(s.encoding).toBe('hashtable');
    expect(setRemove(s, '01')).toBe(true);
    expect(s.encoding).toBe('hashtable');
  });

  it('an intset becomes a hashtable only when a new member passes the limit', () => {
    const s = new SetValue('intset');
    for (const m of ['1', '2', '3']) setAdd(s, m, 3);
    expect(s.encoding).toBe('intset');
    expect(setAdd(s, '3', 2)).toBe(false);
    expect(s.encoding).toBe('intset');
    expect(setAdd(s, '4', 3)).toBe(true);
    expect(s.encoding).toBe('hashtable');
  });

  it('random members follow additions and removals on large sets', () => {
    const random = new Random(7);
    const s = new SetValue('hashtable');
    for (let i = 0; i < 1000; i++) setAdd(s, `m${i}`, 512);
    randomMember(s, random); // builds the index
    for (let i = 0; i < 1000; i += 2) setRemove(s, `m${i}`);
    for (let i = 1000; i < 1100; i++) setAdd(s, `m${i}`, 512);
    const seen = new Set<string>();
    for (let i = 0; i < 8000; i++) {
      const m = randomMember(s, random);
      expect(s.set.has(m)).toBe(true);
      seen.add(m);
    }
    expect(seen.size).toBe(s.set.size);
  });

  it('random members survive changes made behind the helpers', () => {
    const random = new Random(3);
    const s = new SetValue('hashtable');
    for (let i = 0; i < 100; i++) setAdd(s, `m${i}`, 512);
    randomMember(s, random);
    s.set.add('extra');
    const seen = new Set<string>();
    for (let i = 0; i < 5000; i++) seen.add(randomMember(s, random));
    expect(seen.has('extra')).toBe(true);
  });

  it('an intset iterates in numeric order, a hashtable in insertion order', () => {
    const i = new SetValue('intset');
    for (const m of ['5', '-3', '100', '7']) setAdd(i, m, 512);
    expect(membersInOrder(i)).toEqual(['-3', '5', '7', '100']);
    const h = new SetValue('hashtable');
    for (const m of ['b', 'a', 'c']) setAdd(h, m, 512);
    expect(membersInOrder(h)).toEqual(['b', 'a', 'c']);
  });
});

describe('SPOP', () => {
  it('SPOP with <count> returns distinct members and removes them (both strategies, both encodings)', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      for (const [members, count] of [
        [range(1, 100), 10],
        [range(1, 100), 95],
        [range(1, 100).map((x) => `s${x}`), 10],
        [range(1, 100).map((x) => `s${x}`), 90],
      ] as Array<[string[], number]>) {
        const { run } = start(seed);
        run('SADD', 'k', ...members);
        const popped = items(run('SPOP', 'k', String(count)));
        expect(popped.length).toBe(count);
        expect(new Set(popped).size).toBe(count);
        for (const m of popped) expect(members).toContain(m);
        const left = items(run('SMEMBERS', 'k'));
        expect(left.length).toBe(members.length - count);
        expect(new Set([...left, ...popped]).size).toBe(members.length);
      }
    }
  });

  it('SPOP one at a time eventually empties the set, each member once', () => {
    const { run } = start(9);
    const members = range(1, 300).map((x) => `v${x}`);
    run('SADD', 'k', ...members);
    const out = new Set<string>();
    for (let i = 0; i < members.length; i++) out.add(run('SPOP', 'k') as string);
    expect(out.size).toBe(members.length);
    expect(run('EXISTS', 'k')).toBe(0);
    expect(run('SPOP', 'k')).toBe(null);
  });

  it('SPOP propagates as SREM, SREMs in MULTI/EXEC, or DEL', () => {
    const { server, run } = start();
    const log: string[][] = [];
    server.onPropagate((_db, argv) => log.push(argv));
    run('SADD', 'p', ...range(1, 10));
    log.length = 0;

    const one = run('SPOP', 'p') as string;
    expect(log).toEqual([['SREM', 'p', one]]);
    log.length = 0;

    const few = items(run('SPOP', 'p', '2'));
    expect(log).toEqual([['MULTI'], ['SREM', 'p', few[0]], ['SREM', 'p', few[1]], ['EXEC']]);
    log.length = 0;

    // Six of seven: the survivor moves to a new set, the rest go in order.
    const most = items(run('SPOP', 'p', '6'));
    expect(most).toEqual([...most].sort(compareIntStrings));
    expect(log).toEqual([['MULTI'], ...most.map((m) => ['SREM', 'p', m]), ['EXEC']]);
    log.length = 0;

    run('SPOP', 'p', '0');
    expect(log).toEqual([]);
    run('SPOP', 'p', '5');
    expect(log).toEqual([['DEL', 'p']]);
    log.length = 0;
    run('SPOP', 'p', '5');
    expect(log).toEqual([]);
  });

  it('SPOP with <count>=1 propagates a bare SREM', () => {
    const { server, run } = start();
    const log: string[][] = [];
    run('SADD', 'p', 'a', 'b', 'c');
    server.onPropagate((_db, argv) => log.push(argv));
    const [m] = items(run('SPOP', 'p', '1'));
    expect(log).toEqual([['SREM', 'p', m]]);
  });

  it('SPOP counts every popped member as a change', () => {
    const { server, run } = start();
    run('SADD', 'p', ...range(1, 20));
    let before = server.dirty;
    run('SPOP', 'p', '3');
    expect(server.dirty - before).toBe(3);
    before = server.dirty;
    run('SPOP', 'p', '16');
    expect(server.dirty - before).toBe(16);
    before = server.dirty;
    run('SPOP', 'p', '100');
    expect(server.dirty - before).toBe(1);
  });

  it('SPOP keeps up on a large set', () => {
    const { run } = start();
    const members = range(1, 100000).map((x) => `m${x}`);
    for (let i = 0; i < members.length; i += 1000) run('SADD', 'big', ...members.slice(i, i + 1000));
    // A pop that walked the whole set would make these 50,000 take hours and time the test out; how fast they
    // are is npm run bench's to say, not this test's.
    for (let i = 0; i < 50000; i++) run('SPOP', 'big');
    expect(run('SCARD', 'big')).toBe(50000);
  });
});

describe('SRANDMEMBER', () => {
  it('SRANDMEMBER with <count> returns distinct members of the set (every strategy)', () => {
    for (const seed of [1, 2, 3]) {
      const { run } = start(seed);
      const members = range(0, 49);
      run('SADD', 'i', ...members);
      run('SADD', 'h', ...members.map((m) => `h${m}`));
      for (const key of ['i', 'h']) {
        for (const count of [1, 2, 5, 10, 17, 20, 40, 49]) {
          const got = items(run('SRANDMEMBER', key, String(count)));
          expect(got.length).toBe(count);
          expect(new Set(got).size).toBe(count);
          for (const m of got) expect(run('SISMEMBER', key, m)).toBe(1);
        }
        expect(run('SCARD', key)).toBe(50);
      }
    }
  });

  it('SRANDMEMBER with a negative count allows repeats and returns exactly that many', () => {
    const { run } = start();
    run('SADD', 's', 'a', 'b', 'c');
    const got = items(run('SRANDMEMBER', 's', '-100'));
    expect(got.length).toBe(100);
    expect(new Set(got)).toEqual(new Set(['a', 'b', 'c']));
  });

  it('SRANDMEMBER histogram distribution', () => {
    for (const key of ['i', 'h']) {
      const { run } = start(42);
      const members = key === 'i' ? range(0, 49) : range(0, 49).map((x) => `m${x}`);
      run('SADD', key, ...members);
      const counts = new Map<string, number>();
      const picks = items(run('SRANDMEMBER', key, '-50000'));
      for (const m of picks) counts.set(m, (counts.get(m) ?? 0) + 1);
      // Chi-square with 49 degrees of freedom: 80 is far in the tail.
      const expected = picks.length / members.length;
      let chi = 0;
      for (const m of members) chi += ((counts.get(m) ?? 0) - expected) ** 2 / expected;
      expect(chi).toBeLessThan(80);
    }
  });

  it('SRANDMEMBER refuses replies beyond the emulator limit', () => {
    const { run } = start();
    run('SADD', 's', 'a');
    const r = run('SRANDMEMBER', 's', String(-(MAX_RANDOM_REPLY_ELEMENTS + 1)));
    expect(r).toBeInstanceOf(ErrorReply);
    expect(items(run('SRANDMEMBER', 's', '9223372036854775807'))).toEqual(['a']);
  });
});

describe('write bookkeeping', () => {
  it('SADD, SREM and SMOVE count each change in dirty', () => {
    const { server, run } = start();
    let before = server.dirty;
    run('SADD', 's', 'a', 'b', 'a', 'c');
    expect(server.dirty - before).toBe(3);
    before = server.dirty;
    run('SREM', 's', 'a', 'x', 'b');
    expect(server.dirty - before).toBe(2);
    before = server.dirty;
    run('SMOVE', 's', 'd', 'c');
    expect(server.dirty - before).toBe(2);
    run('SADD', 's', 'c');
    before = server.dirty;
    run('SMOVE', 's', 'd', 'c');
    expect(server.dirty - before).toBe(1);
  });

  it('the STORE commands count one change, or one for deleting the destination', () => {
    const { server, run } = start();
    run('SADD', 'a', '1', '2');
    let before = server.dirty;
    run('SUNIONSTORE', 'd', 'a');
    expect(server.dirty - before).toBe(1);
    before = server.dirty;
    run('SINTERSTORE', 'd', 'a', 'missing');
    expect(server.dirty - before).toBe(1);
    before = server.dirty;
    run('SINTERSTORE', 'd', 'a', 'missing');
    expect(server.dirty - before).toBe(0);
  });

  it('a STORE removes the destination TTL', () => {
    const { server, c, run } = start();
    run('SADD', 'a', '1');
    run('SADD', 'd', 'x');
    c.db.setExpire('d', server.nowMs + 10000);
    run('SUNIONSTORE', 'd', 'a');
    expect(c.db.getExpire('d')).toBe(undefined);
  });
});

describe('SSCAN', () => {
  it('SSCAN over a hashtable returns every member present for the whole scan', () => {
    const { run } = start();
    const members = range(1, 500).map((x) => `m${x}`);
    run('SADD', 'h', ...members);
    const seen = new Set<string>();
    let cursor = '0';
    let round = 0;
    do {
      const [next, page] = run('SSCAN', 'h', cursor, 'COUNT', '7') as [string, string[]];
      for (const m of page) seen.add(m);
      // Churn while scanning: members added and removed are allowed to
      // show up or not, the others must.
      run('SADD', 'h', `new${round}`);
      run('SREM', 'h', `new${round - 1}`);
      cursor = next;
      round++;
    } while (cursor !== '0');
    for (const m of members) expect(seen.has(m)).toBe(true);
  });
});

describe('keyspace hits and misses', () => {
  it('reads count every key they look up, writes count nothing (as measured on 7.0.15)', () => {
    const { server, run } = start();
    run('SADD', 'a', '1', '2');
    run('SADD', 'b', '2', '3');
    run('SET', 'str', 'v');
    const steps: Array<[string[], number, number]> = [
      [['SINTER', 'a', 'nokey', 'b'], 2, 1],
      [['SINTER', 'str', 'a'], 3, 1],
      [['SMOVE', 'a', 'b', '1'], 3, 1],
      [['SPOP', 'b'], 3, 1],
      [['SSCAN', 'a', '0'], 4, 1],
      [['SSCAN', 'nokey', '0'], 4, 2],
      [['SUNIONSTORE', 'd', 'a', 'nokey'], 5, 3],
      [['SMISMEMBER', 'nokey', '1'], 5, 4],
      [['SRANDMEMBER', 'a', '3'], 6, 4],
      [['SINTERCARD', '2', 'a', 'nokey'], 7, 5],
      [['SADD', 'a', '5'], 7, 5],
      [['SREM', 'a', '5'], 7, 5],
      [['SCARD', 'nokey'], 7, 6],
      [['SISMEMBER', 'a', '2'], 8, 6],
    ];
    const base = { hits: server.stats.keyspaceHits, misses: server.stats.keyspaceMisses };
    for (const [argv, hits, misses] of steps) {
      run(...argv);
      expect([argv.join(' '), server.stats.keyspaceHits - base.hits, server.stats.keyspaceMisses - base.misses]).toEqual([argv.join(' '), hits, misses]);
    }
  });
});
