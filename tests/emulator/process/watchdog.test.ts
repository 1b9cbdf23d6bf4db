import { describe, expect, it } from 'vitest';
import { setup } from '../replication/cluster.js';

/**
 * The software watchdog (watchdog-period): serverCron sets a timer that
 * goes off only when the thread stays away from serverCron longer than
 * the period, and its report goes to the log (standard output here).
 */
describe('the software watchdog', () => {
  const REPORT = ['\n--- WATCHDOG TIMER EXPIRED ---', 'Sorry: no support for backtrace().', '--------\n'];

  it('is quiet while serverCron runs, reports a thread held by DEBUG SLEEP, and takes at least two cron intervals', async () => {
    const { run, world } = setup({ hosts: ['A'] });
    const out = (): string => world.trace.find('stdout', 'A').map((e) => e.text).join('');
    expect(await run('A', 'CONFIG', 'SET', 'watchdog-period', '10')).toBe('OK');
    // Like Redis: shorter than two serverCron intervals (hz 10) is raised to 200 ms.
    expect(await run('A', 'CONFIG', 'GET', 'watchdog-period')).toEqual(['watchdog-period', '200']);
    world.advance(2000);
    expect(out()).toBe('');
    await run('A', 'DEBUG', 'SLEEP', '0.5');
    const pid = world.redis('A')!.pid;
    expect(out()).toMatch(new RegExp(`^${REPORT.map((l) => `${pid}:signal-handler \\(\\d+\\) ${l.replace(/[().]/g, '\\$&')}\\n`).join('')}$`));
    await run('A', 'CONFIG', 'SET', 'watchdog-period', '0');
    await run('A', 'DEBUG', 'SLEEP', '0.5');
    expect(out().split('WATCHDOG TIMER EXPIRED').length).toBe(2);
  });

  it("goes off while a replica loads the primary's RDB as it comes off the socket", async () => {
    const { run, world, log, server, until } = setup({ config: { 'repl-diskless-sync': 'yes', 'repl-diskless-sync-delay': '0' } });
    // Keys larger than the pipe's pieces, so that the RDB arrives all along the child's second.
    await run('A', 'DEBUG', 'POPULATE', '100', 'key', '100000');
    await run('A', 'CONFIG', 'SET', 'rdb-key-save-delay', '10000');
    await run('B', 'CONFIG', 'SET', 'repl-diskless-load', 'on-empty-db');
    await run('B', 'CONFIG', 'SET', 'watchdog-period', '200');
    await run('B', 'REPLICAOF', 'A', '6379');
    until(() => world.trace.find('stdout', 'B').some((e) => e.text.includes('WATCHDOG TIMER EXPIRED')));
    expect(log('B')).toContain('MASTER <-> REPLICA sync: Loading DB in memory');
    expect(server('B').stats.persistence.loading).toBe(true);
  });
});
