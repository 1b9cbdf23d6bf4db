/**
 * A code cell opens `new Redis({ sentinels, name })` as with ioredis: its
 * commands go to whatever server the sentinels name as the primary, they
 * wait out a failover, and the cell's client is a recorded action of the
 * world, so a checkpoint replays the whole run to the same trace.
 */
import { describe, expect, it } from 'vitest';
import { World } from '../../emulator/world/world.js';
import { runCellInProcess } from '../../src/code-cell/run-in-process.js';
import { SENTINELS, sentinelSetup, sentinelWorld, waitForDiscovery } from '../support/sentinel-world.js';

const SOURCE = `
const r = new Redis({ sentinels: ${JSON.stringify(SENTINELS)}, name: 'mymaster' });
for (let i = 0; i < 5; i++) await r.incr('n');
print('before', await r.get('n'), (await r.role())[0]);
// The primary goes away at once, as in a crash.
const a = connect('A:6379');
await a.shutdown('nosave', 'now').catch(() => print('A is gone'));
for (let i = 0; i < 5; i++) await r.incr('n');
print('after', await r.get('n'), (await r.role())[0]);
`;

describe('a code cell with a Sentinel client', () => {
  it('writes through a failover and replays to the same trace', async () => {
    const s = sentinelWorld(28);
    expect(waitForDiscovery(s)).toBe(true);
    const out = await runCellInProcess(s.world, { from: 'app', source: SOURCE, maxVirtualMs: 120_000 });
    expect(out.error).toBeNull();
    expect(out.output).toEqual(['before 5 master', 'A is gone', 'after 10 master']);
    // The writes after the failover are on the promoted replica, not on A.
    const [promoted] = s.masters();
    expect(['B', 'C']).toContain(promoted);
    expect(s.world.redis(promoted!)!.server.dbs[0]!.size).toBe(1);
    expect(s.world.host('S1').powered).toBe(true);
    expect(s.log('S1')).toContain('+switch-master');

    const cp = s.world.checkpoint();
    expect(cp.complete).toBe(true);
    expect(cp.actions.filter((a) => a.action.kind === 'openSentinelClient')).toHaveLength(1);
    const copy = World.restore(cp, sentinelSetup);
    expect(copy.trace.hash()).toBe(s.world.trace.hash());
  });

  it('says what is wrong with a malformed { sentinels, name } where the cell wrote it', async () => {
    const s = sentinelWorld(29);
    const out = await runCellInProcess(s.world, { from: 'app', source: "const r = new Redis({ sentinels: 'S1', name: 'mymaster' });" });
    expect(out.error?.message).toContain('sentinels is a list');
    expect(out.error?.line).toBe(1);
  });
});
