/**
 * In-process throughput through an async call-per-command client API: the
 * emulator's DirectClient beside ioredis-mock, the same loop for both.
 */
// Every command's code, also those kept apart (emulator/commands/on-demand.ts).
import '../emulator/commands/on-demand-handlers.js';
import RedisMock from 'ioredis-mock';
import { DirectClient, ManualClock, createServer } from '../emulator/index.js';
import { timeIt, type Row } from './measure.js';

export interface Caller {
  call(...args: Array<string | number>): Promise<unknown>;
}

export function emulatorCaller(): Caller {
  const server = createServer({ clock: new ManualClock() });
  return new DirectClient(server);
}

function mockCaller(): Caller {
  // ioredis-mock has no generic call(); its per-command methods are its API.
  const mock = new RedisMock() as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
  return { call: (name, ...args) => mock[String(name).toLowerCase()]!(...args) };
}

export interface Case {
  name: string;
  /** The ratio against ioredis-mock this case must reach (issue 16's table). */
  goal?: number;
  setup?: (c: Caller) => Promise<void>;
  run: (c: Caller, i: number) => Promise<unknown>;
}

const ZSET_SIZE = 5000;
/** How long each timed run lasts. */
const RUN_MS = 700;

export const CASES: Case[] = [
  { name: 'SET', goal: 4.5, run: (c, i) => c.call('SET', `key:${i % 10000}`, 'xxxxxxxxxx') },
  {
    name: 'GET',
    goal: 3,
    setup: async (c) => {
      for (let i = 0; i < 10000; i++) await c.call('SET', `key:${i}`, 'xxxxxxxxxx');
    },
    run: (c, i) => c.call('GET', `key:${i % 10000}`),
  },
  { name: 'INCR', goal: 4.5, run: (c) => c.call('INCR', 'counter') },
  { name: 'LPUSH', run: (c) => c.call('LPUSH', 'list', 'xxxxxxxxxx') },
  { name: 'HSET', run: (c, i) => c.call('HSET', 'hash', `field:${i % 1000}`, 'xxxxxxxxxx') },
  {
    name: `ZADD (${ZSET_SIZE}-member set)`,
    goal: 1000,
    setup: async (c) => {
      for (let i = 0; i < ZSET_SIZE; i++) await c.call('ZADD', 'zset', i, `member:${i}`);
    },
    // Re-scores existing members: the set stays at 5,000 members.
    run: (c, i) => c.call('ZADD', 'zset', (i * 7919) % 100000, `member:${i % ZSET_SIZE}`),
  },
  {
    name: 'ZRANGE 0 99 WITHSCORES',
    setup: async (c) => {
      for (let i = 0; i < ZSET_SIZE; i++) await c.call('ZADD', 'zset', i, `member:${i}`);
    },
    run: (c) => c.call('ZRANGE', 'zset', 0, 99, 'WITHSCORES'),
  },
];

export async function benchInProcess(rounds: number): Promise<Row[]> {
  const rows: Row[] = [];
  for (const k of CASES) {
    const emu = emulatorCaller();
    const mock = mockCaller();
    await k.setup?.(emu);
    await k.setup?.(mock);
    // Alternate the two sides so that machine noise hits both alike.
    let bestEmu = 0;
    let bestMock = 0;
    for (let r = 0; r < rounds; r++) {
      bestEmu = Math.max(bestEmu, await timeIt(RUN_MS, (i) => k.run(emu, i)));
      bestMock = Math.max(bestMock, await timeIt(RUN_MS, (i) => k.run(mock, i)));
    }
    rows.push({ name: k.name, emulator: bestEmu, reference: bestMock, unit: 'ops/s', referenceName: 'ioredis-mock', goal: k.goal });
  }
  return rows;
}
