import { describe, expect, it } from 'vitest';
import { ALL_HANDLERS } from '../../../emulator/commands/index.js';
import { isOnDemandCommand, ON_DEMAND_COMMANDS, onDemandHandlersLoaded } from '../../../emulator/commands/on-demand.js';
import { commandFacts } from '../../../emulator/server/command-table.js';
import { World } from '../../../emulator/world/world.js';

describe('the commands whose code loads on demand', () => {
  it('are commands Redis has, in every server table, and their code is loaded in the tests', () => {
    for (const name of ON_DEMAND_COMMANDS) {
      expect(commandFacts(name), name).toBeDefined();
      expect(ALL_HANDLERS[name], name).toBeDefined();
    }
    expect(onDemandHandlersLoaded()).toBe(true);
  });

  it('are recognised in any case, a container by its subcommand', () => {
    expect(isOnDemandCommand(['Sort', 'k'])).toBe(true);
    expect(isOnDemandCommand(['debug', 'object', 'k'])).toBe(true);
    expect(isOnDemandCommand(['COMMAND', 'DOCS', 'get'])).toBe(true);
    expect(isOnDemandCommand(['memory', 'USAGE', 'k'])).toBe(true);
    expect(isOnDemandCommand(['object', 'encoding', 'k'])).toBe(true);
    expect(isOnDemandCommand(['REPLICAOF', 'no', 'one'])).toBe(true);
    expect(isOnDemandCommand(['slaveof', 'a', '6379'])).toBe(true);
    expect(isOnDemandCommand(['FAILOVER'])).toBe(true);
    expect(isOnDemandCommand(['PSYNC', '?', '-1'])).toBe(true);
    expect(isOnDemandCommand(['sync'])).toBe(true);
    expect(isOnDemandCommand(['COMMAND', 'INFO', 'get'])).toBe(true);
    expect(isOnDemandCommand(['COMMAND'])).toBe(true);
    expect(isOnDemandCommand(['FUNCTION', 'LIST'])).toBe(true);
    expect(isOnDemandCommand(['SPOP', 's'])).toBe(true);
    expect(isOnDemandCommand(['zadd', 'z', '1', 'a'])).toBe(true);
    expect(isOnDemandCommand(['BZPOPMIN', 'z', '0'])).toBe(true);
    expect(isOnDemandCommand(['blpop', 'l', '0'])).toBe(true);
    expect(isOnDemandCommand(['LATENCY', 'latest'])).toBe(true);
    expect(isOnDemandCommand(['slowlog', 'GET'])).toBe(true);
    expect(isOnDemandCommand(['HSET', 'h', 'f', 'v'])).toBe(true);
    expect(isOnDemandCommand(['lpush', 'l', 'a'])).toBe(true);
    expect(isOnDemandCommand(['SADD', 's', 'a'])).toBe(true);
    expect(isOnDemandCommand(['INCR', 'n'])).toBe(false);
    expect(isOnDemandCommand(['set', 'a', '1'])).toBe(false);
    expect(isOnDemandCommand([])).toBe(false);
  });

  it('include both sides of replication, which a server that never follows a primary nor serves a replica never makes', async () => {
    const world = new World({ seed: 3 });
    world.addHost('A', 'metal');
    world.addHost('B', 'metal');
    world.link('A', 'B', 'lan');
    const a = world.startRedis('A');
    const b = world.startRedis('B');
    const r = world.connect({ from: 'B', to: 'B:6379' });
    await world.settle(r.set('k', 'v'));
    expect(await world.settle(r.call('REPLICAOF', 'NO', 'ONE'))).toBe('OK');
    expect(await world.settle(r.call('BGSAVE'))).toBe('Background saving started');
    await world.advanceAsync(3_000);
    expect(b.server.replication.hasReplicaPart).toBe(false);
    expect(a.server.replication.primary.hasSynchronization).toBe(false);
    expect(await world.settle(r.call('REPLICAOF', 'A', '6379'))).toBe('OK');
    // A diskless primary waits five seconds for more replicas.
    await world.advanceAsync(8_000);
    expect(b.server.replication.hasReplicaPart).toBe(true);
    expect(b.server.replication.replica.linkUp()).toBe(true);
    expect(a.server.replication.hasReplicaPart).toBe(false);
    expect(a.server.replication.primary.hasSynchronization).toBe(true);
    expect(b.server.replication.primary.hasSynchronization).toBe(false);
  });
});
