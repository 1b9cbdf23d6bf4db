/**
 * redis-sentinel as a process of the simulated world: started from its
 * config file, it answers its commands as Redis 7.0's sentinel does,
 * announces each monitored master in its log and on its event channels,
 * and rewrites the config file with what it must remember.
 */
import { describe, expect, it } from 'vitest';
import { World } from '../../../emulator/world/world.js';
import { registerSentinel } from '../../../emulator/sentinel/daemon.js';
import { bytesFromArray, bytesToArray } from '../../../emulator/resp/bytes.js';
import type { RedisProcess } from '../../../emulator/process/redis-process.js';

const CONF = [
  'port 26379',
  'logfile "sentinel.log"',
  'sentinel monitor mymaster 10.0.0.2 6379 2',
  'sentinel down-after-milliseconds mymaster 5000',
  'sentinel failover-timeout mymaster 60000',
  '',
].join('\n');

function sentinelWorld(conf = CONF): { world: World; proc: RedisProcess } {
  const world = new World({ seed: 7 });
  registerSentinel(world);
  world.addHost('S1');
  world.addHost('A');
  world.host('S1').disk.mkdir('/etc', { recursive: true });
  world.host('S1').disk.writeFile('/etc/sentinel.conf', bytesToArray(conf));
  const proc = world.spawn('S1', 'redis-sentinel', { config: '/etc/sentinel.conf' }) as RedisProcess;
  return { world, proc };
}

async function call(world: World, client: ReturnType<World['connect']>, ...argv: string[]): Promise<unknown> {
  try {
    return await world.settle(client.call(argv[0]!, ...argv.slice(1)));
  } catch (e) {
    return `ERROR: ${(e as Error).message}`;
  }
}

function file(world: World, path: string): string {
  return bytesFromArray(world.host('S1').disk.readFile(path));
}

describe('redis-sentinel', () => {
  it('picks an id, saves it, and announces the master it monitors', () => {
    const { world, proc } = sentinelWorld();
    expect(proc.port).toBe(26379);
    // The id is on disk once the rewrite's syncs are done.
    world.advance(100);
    const log = file(world, '/sentinel.log');
    const myid = /Sentinel ID is ([0-9a-f]{40})/.exec(log)?.[1];
    expect(myid).toBeDefined();
    expect(log).toMatch(/^\d+:X .* # \+monitor master mymaster 10\.0\.0\.2 6379 quorum 2$/m);
    const conf = file(world, '/etc/sentinel.conf');
    expect(conf).toContain(`sentinel myid ${myid}`);
    expect(conf).toContain('sentinel monitor mymaster 10.0.0.2 6379 2\nsentinel down-after-milliseconds mymaster 5000\nsentinel failover-timeout mymaster 60000\n');
    expect(conf).toContain('sentinel config-epoch mymaster 0\nsentinel leader-epoch mymaster 0\n');
    expect(conf.endsWith('sentinel current-epoch 0\n')).toBe(true);
    expect(conf).not.toContain('parallel-syncs');
  });

  it('keeps its id across a restart', () => {
    const { world, proc } = sentinelWorld();
    world.advance(100);
    const first = /sentinel myid (\w+)/.exec(file(world, '/etc/sentinel.conf'))![1];
    proc.signal('KILL');
    world.advance(10);
    world.spawn('S1', 'redis-sentinel', { config: '/etc/sentinel.conf' });
    const log = file(world, '/sentinel.log');
    expect(log.match(/Sentinel ID is (\w+)/g)).toEqual([`Sentinel ID is ${first}`, `Sentinel ID is ${first}`]);
  });

  it('answers SENTINEL about its masters', async () => {
    const { world } = sentinelWorld();
    const c = world.connect({ from: 'A', to: 'S1:26379' });
    expect(await call(world, c, 'PING')).toBe('PONG');
    expect(await call(world, c, 'SENTINEL', 'GET-MASTER-ADDR-BY-NAME', 'mymaster')).toEqual(['10.0.0.2', '6379']);
    expect(await call(world, c, 'SENTINEL', 'GET-MASTER-ADDR-BY-NAME', 'other')).toBeNull();
    const master = (await call(world, c, 'SENTINEL', 'MASTER', 'mymaster')) as string[];
    const fields = new Map<string, string>();
    for (let i = 0; i < master.length; i += 2) fields.set(master[i]!, master[i + 1]!);
    expect(fields.get('name')).toBe('mymaster');
    expect(fields.get('quorum')).toBe('2');
    expect(fields.get('down-after-milliseconds')).toBe('5000');
    expect(fields.get('failover-timeout')).toBe('60000');
    expect(fields.get('parallel-syncs')).toBe('1');
    expect(((await call(world, c, 'SENTINEL', 'MASTERS')) as unknown[]).length).toBe(1);
    expect(await call(world, c, 'SENTINEL', 'REPLICAS', 'mymaster')).toEqual([]);
    expect(await call(world, c, 'SENTINEL', 'MASTER', 'nope')).toBe('ERROR: ERR No such master with that name');
    expect(await call(world, c, 'SENTINEL', 'MASTERS', 'x')).toBe("ERROR: ERR wrong number of arguments for 'sentinel|masters' command");
    expect(await call(world, c, 'SENTINEL', 'FOO')).toBe("ERROR: ERR unknown subcommand 'FOO'. Try SENTINEL HELP.");
    expect(await call(world, c, 'SENTINEL', 'IS-MASTER-DOWN-BY-ADDR', '10.0.0.2', '6379', '0', '*')).toEqual([0, '*', 0]);
    expect(String(await call(world, c, 'SENTINEL', 'MYID'))).toMatch(/^[0-9a-f]{40}$/);
    expect(await call(world, c, 'SENTINEL', 'CKQUORUM', 'mymaster')).toMatch(/^ERROR: NOQUORUM 1 usable Sentinels\. Not enough available Sentinels to reach the specified quorum/);
    expect(await call(world, c, 'GET', 'k')).toBe("ERROR: ERR unknown command 'GET', with args beginning with: 'k' ");
    expect(await call(world, c, 'ROLE')).toEqual(['sentinel', ['mymaster']]);
    const info = String(await call(world, c, 'INFO'));
    expect(info).toContain('# Server\r\n');
    expect(info).toContain('# Sentinel\r\nsentinel_masters:1\r\nsentinel_tilt:0\r\n');
    expect(info).toContain('master0:name=mymaster,status=ok,address=10.0.0.2:6379,slaves=0,sentinels=1\r\n');
  });

  it('monitors, changes and forgets masters on command, publishing each event', async () => {
    const { world, proc } = sentinelWorld();
    const events: string[] = [];
    const publish = proc.server.pubsub.publish.bind(proc.server.pubsub);
    proc.server.pubsub.publish = (channel, message, kind) => {
      events.push(`${channel} ${message}`);
      return publish(channel, message, kind);
    };
    const c = world.connect({ from: 'A', to: 'S1:26379' });
    expect(await call(world, c, 'SENTINEL', 'MONITOR', 'other', '10.0.0.9', '6380', '0')).toBe('ERROR: ERR Quorum must be 1 or greater.');
    expect(await call(world, c, 'SENTINEL', 'MONITOR', 'other', 'not-an-ip', '6380', '1')).toBe('ERROR: ERR Invalid IP address or hostname specified');
    expect(await call(world, c, 'SENTINEL', 'MONITOR', 'other', '10.0.0.9', '6380', '1')).toBe('OK');
    expect(await call(world, c, 'SENTINEL', 'SET', 'other', 'parallel-syncs', '2')).toBe('OK');
    // The monitor line stays where the first flush put it; the new option is appended (rewriteConfigRewriteLine).
    expect(file(world, '/etc/sentinel.conf')).toMatch(/\nsentinel monitor other 10\.0\.0\.9 6380 1\n(.*\n)*sentinel parallel-syncs other 2\n$/);
    expect(await call(world, c, 'SENTINEL', 'REMOVE', 'other')).toBe('OK');
    expect(file(world, '/etc/sentinel.conf')).not.toContain('other');
    expect(await call(world, c, 'SENTINEL', 'RESET', 'my*')).toBe(1);
    expect(file(world, '/sentinel.log')).toContain('# -monitor master other 10.0.0.9 6380\n');
    expect(events).toEqual([
      '+monitor master other 10.0.0.9 6380 quorum 1',
      '+set master other 10.0.0.9 6380 parallel-syncs 2',
      '-monitor master other 10.0.0.9 6380',
      '+reset-master master mymaster 10.0.0.2 6379',
    ]);
  });

  it('refuses to start on a config line it cannot read', () => {
    const world = new World({ seed: 1 });
    registerSentinel(world);
    world.addHost('S1');
    world.host('S1').disk.writeFile('/s.conf', bytesToArray('sentinel down-after-milliseconds nobody 5000\n'));
    expect(() => world.spawn('S1', 'redis-sentinel', { config: '/s.conf' })).toThrow(/No such master with specified name/);
    expect(() => world.spawn('S1', 'redis-sentinel', { config: '/missing.conf' })).toThrow(/Sentinel needs config file on disk/);
  });
});
