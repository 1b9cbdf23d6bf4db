import { describe, expect, it } from 'vitest';
import { setup } from './cluster.js';

describe('the stream on a replica', () => {
  it('a read-only replica refuses writes; the primary\'s writes go through', async () => {
    const { run, until, linkUp, server } = setup();
    await run('B', 'REPLICAOF', 'A', '6379');
    until(() => linkUp('B'));
    expect(await run('B', 'SET', 'x', '1')).toBe("READONLY You can't write against a read only replica.");
    await run('B', 'CONFIG', 'SET', 'replica-read-only', 'no');
    expect(await run('B', 'SET', 'x', '1')).toBe('OK');
    await run('A', 'INCR', 'n');
    until(() => server('B').dbs[0]!.dict.has('n'));
  });

  it('counts every byte applied into its offset, equal to the primary\'s', async () => {
    const { run, until, linkUp, server } = setup();
    await run('B', 'REPLICAOF', 'A', '6379');
    until(() => linkUp('B'));
    for (let i = 0; i < 50; i++) await run('A', 'SET', `k${i}`, 'x'.repeat(i));
    await run('A', 'SELECT', '3');
    await run('A', 'MULTI');
    until(() => server('B').replication.masterReplOffset === server('A').replication.masterReplOffset);
    expect(server('B').replication.replId).toBe(server('A').replication.replId);
  });

  it('keeps an expired key until the primary\'s DEL, but does not show it', async () => {
    const { world, run, until, linkUp, server } = setup();
    await run('B', 'REPLICAOF', 'A', '6379');
    until(() => linkUp('B'));
    await run('A', 'DEBUG', 'SET-ACTIVE-EXPIRE', '0');
    await run('A', 'SET', 'e', 'v', 'PX', '300');
    until(() => server('B').dbs[0]!.dict.has('e'));
    world.advance(500);
    expect(await run('B', 'GET', 'e')).toBe(null);
    expect(await run('B', 'EXISTS', 'e')).toBe(0);
    expect(server('B').dbs[0]!.dict.has('e')).toBe(true);
    expect(await run('A', 'GET', 'e')).toBe(null);
    until(() => !server('B').dbs[0]!.dict.has('e'), 1000);
  });

  it('MONITOR on a replica shows the commands that arrive from the primary', async () => {
    const { world, run, until, linkUp } = setup();
    await run('B', 'REPLICAOF', 'A', '6379');
    until(() => linkUp('B'));
    const s = world.openSession('mon', 'app', 'B:6379');
    world.send('mon', ['MONITOR']);
    world.advance(50);
    await run('A', 'SET', 'seen', '1');
    world.advance(50);
    const lines = s.replies().map((r) => (r as { text: string }).text);
    expect(lines.some((l) => /^\d+\.\d{6} \[0 10\.0\.0\.3:6379\] "SET" "seen" "1"$/.test(l))).toBe(true);
  });

  it('MASTERDOWN when the link is down and replica-serve-stale-data is off', async () => {
    const { run } = setup({ config: { 'replica-serve-stale-data': 'no' } });
    await run('B', 'REPLICAOF', 'A', '7777');
    expect(await run('B', 'GET', 'k')).toBe("MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.");
    expect(await run('B', 'PING')).toBe("MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.");
    expect(await run('B', 'INFO', 'replication')).toMatch(/master_link_status:down/);
  });
});
