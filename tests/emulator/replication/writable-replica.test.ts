import { describe, expect, it } from 'vitest';
import { setup } from './cluster.js';

/** A figure of INFO's text. */
function infoField(text: unknown, name: string): string | undefined {
  return new RegExp(`^${name}:(.*)\\r$`, 'm').exec(String(text))?.[1];
}

describe('a writable replica', () => {
  it('expires the keys its own clients gave a TTL, and leaves its primary\'s to the primary', async () => {
    const { world, run, until, linkUp, server } = setup();
    await run('B', 'REPLICAOF', 'A', '6379');
    until(() => linkUp('B'));
    await run('B', 'CONFIG', 'SET', 'replica-read-only', 'no');
    // The primary's key with a TTL: only the primary's DEL may remove it,
    // and the primary does not expire it actively.
    await run('A', 'DEBUG', 'SET-ACTIVE-EXPIRE', '0');
    await run('A', 'SET', 'p', 'v', 'PX', '300');
    until(() => server('B').dbs[0]!.dict.has('p'));

    await run('B', 'SELECT', '5');
    expect(await run('B', 'SET', 'k1', '1', 'EX', '5')).toBe('OK');
    await run('B', 'SET', 'k2', '2');
    expect(await run('B', 'EXPIRE', 'k2', '5')).toBe(1);
    await run('B', 'SET', 'k3', '3');
    expect(await run('B', 'COPY', 'k1', 'k4')).toBe(1);
    expect(await run('B', 'DBSIZE')).toBe(4);
    expect(infoField(await run('B', 'INFO', 'stats'), 'slave_expires_tracked_keys')).toBe('3');

    world.advance(6000);
    until(() => server('B').dbs[5]!.dict.size === 1);
    expect(await run('B', 'KEYS', '*')).toEqual(['k3']);
    const stats = await run('B', 'INFO', 'stats');
    expect(infoField(stats, 'slave_expires_tracked_keys')).toBe('0');
    expect(Number(infoField(stats, 'expired_keys'))).toBe(3);
    // The primary's key is logically expired on the replica but still there.
    expect(server('B').dbs[0]!.dict.has('p')).toBe(true);
  });

  it('forgets the keys it tracked when all data goes, and never tracks its primary\'s', async () => {
    const { run, until, linkUp, server } = setup();
    await run('B', 'REPLICAOF', 'A', '6379');
    until(() => linkUp('B'));
    await run('B', 'CONFIG', 'SET', 'replica-read-only', 'no');
    await run('A', 'SET', 'p', 'v', 'EX', '100');
    await run('A', 'EXPIRE', 'p', '200');
    until(() => server('B').dbs[0]!.expires.get('p') !== undefined);
    await run('B', 'SET', 'mine', 'v', 'EX', '100');
    expect(infoField(await run('B', 'INFO', 'stats'), 'slave_expires_tracked_keys')).toBe('1');
    await run('B', 'FLUSHALL');
    expect(infoField(await run('B', 'INFO', 'stats'), 'slave_expires_tracked_keys')).toBe('0');
    // A read-only replica's clients cannot set a TTL, so nothing is tracked.
    await run('B', 'CONFIG', 'SET', 'replica-read-only', 'yes');
    await run('A', 'SET', 'q', 'v', 'EX', '100');
    until(() => server('B').dbs[0]!.dict.has('q'));
    expect(infoField(await run('B', 'INFO', 'stats'), 'slave_expires_tracked_keys')).toBe('0');
  });
});
