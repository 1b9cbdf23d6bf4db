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

describe('propagation on the hot path', () => {
  it('gives a write alone to the listeners at once, with no entry in the pending list, and still wraps a transaction', async () => {
    const server = createServer({ clock: new ManualClock() });
    const seen: string[] = [];
    server.onPropagate((db, argv) => seen.push(`${db} ${argv.join(' ')}`));
    const push = vi.spyOn((server as unknown as { pending: unknown[] }).pending, 'push');
    const r = new DirectClient(server);
    await r.call('SET', 'k', 'v');
    await r.call('INCR', 'n');
    expect(push).not.toHaveBeenCalled();
    await r.call('MULTI');
    await r.call('SET', 'a', '1');
    await r.call('SET', 'b', '2');
    await r.call('EXEC');
    expect(seen).toEqual(['0 SET k v', '0 INCR n', '0 MULTI', '0 SET a 1', '0 SET b 2', '0 EXEC']);
  });
});

describe('the slow log on the hot path', () => {
  it('costs a command that is not slow no clock read and no entry, and still trims the log', async () => {
    class CountingClock extends ManualClock {
      reads = 0;
      override nowUs(): number {
        this.reads++;
        return super.nowUs();
      }
    }
    const clock = new CountingClock();
    const server = createServer({ clock });
    const r = new DirectClient(server);
    await r.call('SET', 'k', 'v');
    clock.reads = 0;
    await r.call('GET', 'k');
    // The dispatcher's time of the command (updateTime) and the two ends of its run.
    expect(clock.reads).toBe(3);
    // Slower than 0 us: every command is logged, the CONFIG SET that said so included.
    await r.call('CONFIG', 'SET', 'slowlog-log-slower-than', '0');
    for (let i = 0; i < 5; i++) await r.call('GET', 'k');
    expect(await r.call('SLOWLOG', 'LEN')).toBe(6);
    // A shorter log is trimmed by the next command, slow or not.
    await r.call('CONFIG', 'SET', 'slowlog-log-slower-than', '1000000', 'slowlog-max-len', '2');
    await r.call('GET', 'k');
    expect(await r.call('SLOWLOG', 'LEN')).toBe(2);
  });
});

describe('the in-process client on the hot path', () => {
  it('hands the server every kind of argument as the bytes it stands for', async () => {
    const r = new DirectClient(createServer({ clock: new ManualClock() }));
    await r.call('SET', 'café', 'naïve ü');
    expect(await r.call('STRLEN', 'café')).toBe(9);
    expect(await r.call('GET', 'café')).toBe('naïve ü');
    await r.call('SET', 'n', 12);
    expect(await r.call('INCRBY', 'n', 30n)).toBe(42);
    await r.call('SET', 'raw', Uint8Array.of(0xff, 0x00, 0x41));
    expect(await r.call('STRLEN', 'raw')).toBe(3);
    expect(await r.call('GETRANGE', 'raw', 2, 2)).toBe('A');
    const args = ['k', 'v'];
    await r.call('SET', ...args);
    expect(args).toEqual(['k', 'v']);
  });
});
