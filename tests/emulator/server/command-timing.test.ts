import { describe, expect, it } from 'vitest';
import { World } from '../../../emulator/world/world.js';
import { commandCost, REDIS_CPU } from '../../../emulator/sim/cpu.js';
import '../../../emulator/commands/on-demand-handlers.js';

/**
 * In a simulated world a command takes the virtual time the CPU model
 * charges for it (plus whatever it stalls: a fork, DEBUG SLEEP, SAVE's
 * disk); SLOWLOG, LATENCY and INFO commandstats report that time.
 */
function setup(profile: 'core2duo' | 'xen' | 'metal' = 'core2duo', config: Record<string, string> = {}) {
  const world = new World({ seed: 3 });
  world.addHost('A', profile);
  world.addHost('app', 'metal');
  world.link('app', 'A', 'lan');
  const p = world.startRedis('A', { config: { save: '', ...config } });
  const r = world.connect({ from: 'app', to: 'A:6379' });
  const run = (command: string, ...args: string[]): Promise<unknown> => world.settle(r.call(command, ...args));
  return { world, p, r, run };
}

type Entry = [number, number, number, string[], string, string];

describe('command durations in virtual time', () => {
  it('SLOWLOG reports the time the CPU model charged for the command', async () => {
    const { run } = setup('core2duo', { 'slowlog-log-slower-than': '0' });
    const items = Array.from({ length: 2000 }, (_, i) => `item:${i}`);
    await run('RPUSH', 'l', ...items);
    await run('SLOWLOG', 'RESET');
    const reply = (await run('LRANGE', 'l', '0', '-1')) as string[];
    expect(reply).toHaveLength(2000);
    const [entry] = (await run('SLOWLOG', 'GET', '1')) as Entry[];
    expect(entry![3]).toEqual(['LRANGE', 'l', '0', '-1']);
    const expected = commandCost(REDIS_CPU, ['LRANGE', 'l', '0', '-1'], reply);
    // The clock is read in whole microseconds before and after.
    expect(Math.abs(entry![2] - expected)).toBeLessThanOrEqual(1);
    expect(expected).toBeGreaterThan(100);
  });

  it('a slower host takes longer for the same command, and commandstats add the durations up', async () => {
    const durations: number[] = [];
    for (const profile of ['core2duo', 'metal'] as const) {
      const { run } = setup(profile, { 'slowlog-log-slower-than': '0' });
      await run('CONFIG', 'RESETSTAT');
      for (let i = 0; i < 3; i++) await run('MSET', ...Array.from({ length: 200 }, (_, j) => `k${j}`));
      const entries = ((await run('SLOWLOG', 'GET', '-1')) as Entry[]).filter((e) => e[3][0] === 'MSET');
      expect(entries).toHaveLength(3);
      const sum = entries.reduce((n, e) => n + e[2], 0);
      const info = (await run('INFO', 'commandstats')) as string;
      expect(info).toContain(`cmdstat_mset:calls=3,usec=${sum},`);
      durations.push(sum);
    }
    // core2duo runs at 1, metal at 4 times its speed.
    expect(durations[0]! / durations[1]!).toBeGreaterThan(3.5);
  });

  it('DEBUG SLEEP holds the server for its time: a slow log entry and a command latency event', async () => {
    const { run } = setup('metal', { 'slowlog-log-slower-than': '100000', 'latency-monitor-threshold': '100', 'enable-debug-command': 'yes' });
    await run('PING');
    await run('DEBUG', 'SLEEP', '0.25');
    const [entry] = (await run('SLOWLOG', 'GET')) as Entry[];
    expect(entry![3]).toEqual(['DEBUG', 'SLEEP', '0.25']);
    expect(entry![2]).toBeGreaterThanOrEqual(250_000);
    expect(entry![2]).toBeLessThan(250_100);
    const latest = (await run('LATENCY', 'LATEST')) as Array<[string, number, number, number]>;
    expect(latest).toHaveLength(1);
    expect(latest[0]![0]).toBe('command');
    expect(latest[0]![2]).toBe(250);
    expect(await run('SLOWLOG', 'LEN')).toBe(1);
  });

  it('SAVE lasts until its file is on the disk; BGSAVE only as long as the fork', async () => {
    const { run } = setup('core2duo', { 'slowlog-log-slower-than': '0' });
    await run('SET', 'k', 'v');
    await run('SAVE');
    await run('BGSAVE');
    const entries = (await run('SLOWLOG', 'GET', '-1')) as Entry[];
    const save = entries.find((e) => e[3][0] === 'SAVE')!;
    const bgsave = entries.find((e) => e[3][0] === 'BGSAVE')!;
    // A spinning disk syncs in about 5 ms, twice (the file, then its directory).
    expect(save[2]).toBeGreaterThan(5000);
    const info = (await run('INFO', 'stats')) as string;
    const forkUs = Number(/latest_fork_usec:(\d+)/.exec(info)![1]);
    expect(bgsave[2]).toBeGreaterThanOrEqual(forkUs);
    expect(bgsave[2]).toBeLessThan(save[2]);
  });

  it('a fork on Xen with a large dataset is a latency spike of its own, and BGSAVE waits for it', async () => {
    const { run } = setup('xen', { 'slowlog-log-slower-than': '0', 'latency-monitor-threshold': '2', 'enable-debug-command': 'yes' });
    await run('DEBUG', 'POPULATE', '10000', 'key', '2000');
    await run('BGSAVE');
    const info = (await run('INFO', 'stats')) as string;
    const forkUs = Number(/latest_fork_usec:(\d+)/.exec(info)![1]);
    expect(forkUs).toBeGreaterThan(3000);
    const history = (await run('LATENCY', 'HISTORY', 'fork')) as Array<[number, number]>;
    expect(history).toHaveLength(1);
    expect(history[0]![1]).toBe(Math.floor(forkUs / 1000));
    const entry = ((await run('SLOWLOG', 'GET')) as Entry[]).find((e) => e[3][0] === 'BGSAVE')!;
    expect(entry[2]).toBeGreaterThanOrEqual(forkUs);
    const doctor = (await run('LATENCY', 'DOCTOR')) as string;
    expect(doctor).toMatch(/fork: 1 spikes/);
    expect(doctor).toMatch(/Forks copy [\d.]+ GB a second \((terrible|poor)\)/);
  });

  it('appendfsync always makes the thread wait for the disk: an aof-fsync-always event', async () => {
    const { run } = setup('core2duo', { appendonly: 'yes', appendfsync: 'always', 'latency-monitor-threshold': '1' });
    await run('SET', 'k', 'v');
    const history = (await run('LATENCY', 'HISTORY', 'aof-fsync-always')) as Array<[number, number]>;
    expect(history.length).toBeGreaterThanOrEqual(1);
    expect(history.at(-1)![1]).toBeGreaterThanOrEqual(4);
  });

  it('a blocked command is logged once served, with the time of its first run', async () => {
    const { world, r, run } = setup('core2duo', { 'slowlog-log-slower-than': '0' });
    const other = world.connect({ from: 'app', to: 'A:6379' });
    await run('SLOWLOG', 'RESET');
    const popped = r.call('BLPOP', 'q', '0');
    await world.advanceAsync(50);
    expect(await world.settle(other.call('SLOWLOG', 'LEN'))).toBe(1);
    await world.settle(other.call('RPUSH', 'q', 'job'));
    expect(await world.settle(popped)).toEqual(['q', 'job']);
    const entries = (await world.settle(other.call('SLOWLOG', 'GET'))) as Entry[];
    expect(entries.map((e) => e[3][0])).toEqual(['BLPOP', 'RPUSH', 'SLOWLOG', 'SLOWLOG']);
    // Waiting for the list is not running: the entry is far shorter than the 50 ms wait.
    expect(entries[0]![2]).toBeLessThan(1000);
  });
});
