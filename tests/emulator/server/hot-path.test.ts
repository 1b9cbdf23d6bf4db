import { describe, expect, it, vi } from 'vitest';

/**
 * What the dispatcher does per command on the hot path, counted: the work
 * every SET, GET or INCR pays shows in every figure of `npm run bench`.
 */
const counts = vi.hoisted(() => ({ asciiLower: 0 }));
vi.mock('../../../emulator/resp/bytes.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../emulator/resp/bytes.js')>();
  return {
    ...real,
    asciiLower: (s: string) => {
      counts.asciiLower++;
      return real.asciiLower(s);
    },
  };
});

const { DirectClient, ManualClock, createServer } = await import('../../../emulator/index.js');
await import('../../../emulator/commands/on-demand-handlers.js');

describe('the dispatcher on the hot path', () => {
  it('folds the case of no command name already spelled as in the table', async () => {
    const r = new DirectClient(createServer({ clock: new ManualClock() }));
    const commands: string[][] = [
      ['SET', 'k', 'v'],
      ['GET', 'k'],
      ['INCR', 'n'],
      ['incr', 'n'],
      ['LPUSH', 'l', 'a'],
      ['HSET', 'h', 'f', 'v'],
      ['ZADD', 'z', '1', 'm'],
      ['PING'],
    ];
    counts.asciiLower = 0;
    for (const argv of commands) await r.call(...argv);
    expect(counts.asciiLower).toBe(0);
  });

  it('still closes a connection whose command is "post" or "host:" in any case, and only those', async () => {
    const server = createServer({ clock: new ManualClock() });
    const closedBy = async (name: string): Promise<boolean> => {
      const r = new DirectClient(server);
      await r.call(name, 'x').catch(() => undefined);
      return r.client.closeAsap;
    };
    const names = ['POST', 'post', 'pOsT', 'HOST:', 'host:', 'hOsT:', 'POSTS', 'HOST', 'PUSH', 'HOST;', 'P0ST', 'PING'];
    const closed: string[] = [];
    for (const n of names) if (await closedBy(n)) closed.push(n);
    expect(closed).toEqual(['POST', 'post', 'pOsT', 'HOST:', 'host:', 'hOsT:']);
  });
});
