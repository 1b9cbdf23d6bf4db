import { describe, expect, it } from 'vitest';
import { registerShellProgram } from '../../../emulator/programs/shell.js';
import { World } from '../../../emulator/world/world.js';
import { applyFault, faultLabel, type Fault } from '../../../src/web/cluster/faults.js';
import { clusterView } from '../../../src/web/cluster/cluster-view.js';
import { installWorkbookPrograms } from '../../../src/web/world-programs.js';
import { storeHarness } from '../store-harness.js';

/** A world rebuilt from the store's world's checkpoint, with the programs its log names. */
function replayed(world: World): World {
  return World.restore(world.checkpoint(), (w) => {
    registerShellProgram(w);
    installWorkbookPrograms(w);
  });
}

async function sandbox() {
  const h = storeHarness();
  const t = h.open();
  await h.run(50);
  const send = async (...lines: string[]) => {
    for (const line of lines) h.store.sendLine(t.id, line);
    await h.run(300);
  };
  const server = () => clusterView(h.store.world).hosts.find((x) => x.name === 'redis')!;
  return { h, t, send, server };
}

describe('the cluster panel faults', () => {
  it('cut the power: every process dies, the page cache is lost, and a replay of the checkpoint does the same', async () => {
    const { h, send, server } = await sandbox();
    await send('SET a 1', 'SAVE', 'SET b 2');
    const out = applyFault(h.store, { kind: 'power-loss', host: 'redis' });
    expect(out).toEqual({ ok: true, message: 'redis: power cut; every process died and what was not on the disk yet is lost' });
    await h.run(50);
    const off = server();
    expect(off.powered).toBe(false);
    expect(off.servers).toEqual([]);
    // Started directly with options: the options as a command line a learner could type.
    expect(off.stopped).toEqual([{ port: 6379, commandLine: expect.stringMatching(/^redis-server --port 6379 --dir \/var\/lib\/redis( |$)/) }]);
    expect(off.files.files.find((f) => f.path === '/var/lib/redis/dump.rdb')).toMatchObject({ cachedBytes: 0 });
    // A refused fault is an outcome, not an exception.
    expect(applyFault(h.store, { kind: 'start-redis', host: 'redis', port: 6379 })).toEqual({
      ok: false,
      message: 'Start redis-server on redis port 6379 again, as it was last started: redis is powered off',
    });
    expect(clusterView(replayed(h.store.world))).toEqual(clusterView(h.store.world));
  });

  it('power on and start: the server comes back with the configuration it was started with and loads dump.rdb', async () => {
    const { h, send, server } = await sandbox();
    await send('SET a 1', 'SAVE', 'SET lost 2');
    applyFault(h.store, { kind: 'power-loss', host: 'redis' });
    applyFault(h.store, { kind: 'power-on', host: 'redis' });
    expect(applyFault(h.store, { kind: 'start-redis', host: 'redis', port: 6379 })).toEqual({ ok: true, message: 'redis: redis-server started on port 6379' });
    await h.run(300);
    const s = server().servers[0]!;
    expect(s.port).toBe(6379);
    expect(s.dbs.map((d) => d.sample.map((k) => k.name))).toEqual([['"a"']]);
    expect(server().stopped).toEqual([]);
    expect(clusterView(replayed(h.store.world)).hosts).toEqual(clusterView(h.store.world).hosts);
  });

  it('kill -9 drops what redis-server had not written; SIGTERM shuts it down gracefully, saving first', async () => {
    const { h, send, server } = await sandbox();
    await send('SET a 1');
    const pid = server().servers[0]!.pid;
    const term: Fault = { kind: 'term', host: 'redis', pid };
    expect(applyFault(h.store, term).ok).toBe(true);
    await h.run(300);
    // The default save rules are set, so the shutdown saves the dataset first.
    const dump = server().files.files.find((f) => f.path === '/var/lib/redis/dump.rdb');
    expect(dump).toBeDefined();
    expect(server().servers).toEqual([]);
    expect(h.store.world.trace.find('log', 'redis').map((e) => e.text)).toContain('Saving the final RDB snapshot before exiting.');

    applyFault(h.store, { kind: 'start-redis', host: 'redis', port: 6379 });
    await h.run(300);
    const again = server().servers[0]!;
    expect(again.dbs[0]!.keys).toBe(1);
    expect(applyFault(h.store, { kind: 'kill', host: 'redis', pid: again.pid })).toEqual({
      ok: true,
      message: `redis: redis-server (pid ${again.pid}) killed; what it had not written is lost, the page cache stays`,
    });
    await h.run(50);
    expect(server().servers).toEqual([]);
    expect(applyFault(h.store, { kind: 'kill', host: 'redis', pid: again.pid })).toMatchObject({ ok: false, message: expect.stringContaining('No such process') });
  });

  it('starts a server a shell started with its command line again, reading the config file anew in the same directory', async () => {
    const { h, server } = await sandbox();
    const sh = h.open({ kind: 'shell', host: 'redis' });
    await h.run(50);
    h.store.sendLine(sh.id, 'cd /tmp');
    h.store.sendLine(sh.id, "echo 'appendonly yes' > my.conf");
    h.store.sendLine(sh.id, 'redis-server my.conf --port 6380');
    await h.run(300);
    const started = server().servers.find((s) => s.port === 6380)!;
    expect(started.persistence).toMatchObject({ aofEnabled: true, appendfsync: 'everysec' });
    applyFault(h.store, { kind: 'kill', host: 'redis', pid: started.pid });
    await h.run(50);
    expect(server().stopped).toEqual([{ port: 6380, commandLine: 'redis-server my.conf --port 6380' }]);
    // The config file changes while the server is down: starting again reads it as it is now, from /tmp.
    h.store.sendLine(sh.id, 'cd /');
    h.store.sendLine(sh.id, "echo 'appendfsync always' >> /tmp/my.conf");
    await h.run(100);
    expect(applyFault(h.store, { kind: 'start-redis', host: 'redis', port: 6380 }).ok).toBe(true);
    await h.run(300);
    const back = server().servers.find((s) => s.port === 6380)!;
    expect(back.persistence).toMatchObject({ aofEnabled: true, appendfsync: 'always' });
    // Its dir is the directory the command was typed in.
    expect(server().files.files.map((f) => f.path)).toContain('/tmp/appendonlydir/appendonly.aof.manifest');
    expect(clusterView(replayed(h.store.world)).hosts).toEqual(clusterView(h.store.world).hosts);
  });

  it('partitions and heals a link, and changes its profile, as recorded actions', async () => {
    const { h, t, send } = await sandbox();
    const link = () => clusterView(h.store.world).links[0]!;
    expect(link()).toEqual({ a: 'app', b: 'redis', profile: 'localhost', rttUs: 15, bandwidthBps: 10e9, cut: 'none' });
    applyFault(h.store, { kind: 'partition', a: 'app', b: 'redis' });
    expect(link().cut).toBe('both');
    h.store.sendLine(t.id, 'PING');
    await h.run(200);
    expect(t.lines().slice(-1)).toEqual(['redis:6379> PING']);
    applyFault(h.store, { kind: 'heal', a: 'app', b: 'redis' });
    await h.run(200);
    expect(link().cut).toBe('none');
    expect(t.lines().slice(-2)).toEqual(['PONG', 'redis:6379>']);
    applyFault(h.store, { kind: 'link-profile', a: 'app', b: 'redis', profile: 'vpn' });
    expect(link()).toMatchObject({ profile: 'vpn', rttUs: 48_000, bandwidthBps: 1.8e6 });
    await send('PING');
    expect(clusterView(replayed(h.store.world)).links).toEqual(clusterView(h.store.world).links);
  });

  it('fills a disk and makes its calls fail, which BGSAVE then reports', async () => {
    const { h, t, send, server } = await sandbox();
    applyFault(h.store, { kind: 'disk-full', host: 'redis', full: true });
    expect(server().disk).toMatchObject({ kind: 'ssd', full: true, failing: { write: 0, fsync: 0, rename: 0 } });
    await send('SET a 1', 'SAVE');
    expect(t.lines().slice(-2)).toEqual(['(error) ERR', 'redis:6379>']);
    applyFault(h.store, { kind: 'disk-full', host: 'redis', full: false });
    expect(applyFault(h.store, { kind: 'disk-error', host: 'redis', op: 'rename', count: 1 })).toEqual({
      ok: true,
      message: 'redis: the next rename call will fail with EIO',
    });
    expect(server().disk).toMatchObject({ full: false, failing: { write: 0, fsync: 0, rename: 1 } });
    await send('BGSAVE');
    await h.run(500);
    const p = server().servers[0]!.persistence;
    expect(p.lastBgsaveOk).toBe(false);
    expect(server().disk.failing.rename).toBe(0);
    expect(clusterView(replayed(h.store.world)).hosts).toEqual(clusterView(h.store.world).hosts);
  });

  it('names every button for what it does', () => {
    expect(faultLabel({ kind: 'kill', host: 'redis', pid: 1000 })).toBe('Kill redis-server (pid 1000) on redis with SIGKILL, as kill -9 does');
    expect(faultLabel({ kind: 'disk-error', host: 'redis', op: 'fsync', count: 1 })).toBe('Make the next fsync call on the disk of redis fail with EIO');
    expect(faultLabel({ kind: 'link-profile', a: 'app', b: 'redis', profile: 'lan' })).toBe('Make the link between app and redis a lan link');
  });
});

describe('the cluster view of a server', () => {
  it('shows persistence as INFO does: a BGSAVE in progress with its progress, then the last save', async () => {
    const { h, t, send, server } = await sandbox();
    // serverCron gathers the child's progress: run it often enough to see some.
    await send('CONFIG SET hz 500');
    const r = h.store.world.connect({ from: 'app', to: 'redis:6379' });
    for (let i = 0; i < 20; i++) {
      const pairs = Array.from({ length: 10_000 }, (_, j) => [`key:${i * 10_000 + j}`, 'v']).flat();
      await h.store.world.settle(r.call('MSET', ...pairs));
    }
    h.store.pause();
    h.store.sendLine(t.id, 'BGSAVE');
    for (let i = 0; i < 100 && !server().servers[0]!.persistence.bgsaveInProgress; i++) h.store.step(1);
    expect(server().servers[0]!.persistence.bgsaveInProgress).toBe(true);
    // The child reports its progress from time to time, as Redis's does through its info pipe.
    for (let i = 0; i < 300 && server().servers[0]!.persistence.bgsaveKeysProcessed === 0; i++) h.store.step(1);
    const during = server().servers[0]!.persistence;
    expect(during.bgsaveInProgress).toBe(true);
    expect(during.bgsaveKeysTotal).toBe(200000);
    expect(during.bgsaveKeysProcessed).toBeGreaterThan(0);
    expect(during.bgsaveKeysProcessed).toBeLessThan(200000);
    h.store.resume();
    await h.run(3000);
    const after = server().servers[0]!.persistence;
    expect(after).toMatchObject({ bgsaveInProgress: false, lastBgsaveOk: true, changesSinceSave: 0, aofEnabled: false, appendfsync: 'everysec' });
    expect(after.lastSaveUnixS).not.toBeNull();
  });

  it("shows replication from the server's own INFO: a primary with no replicas", async () => {
    const { server } = await sandbox();
    expect(server().servers[0]!.replication).toEqual({
      role: 'master',
      connectedReplicas: 0,
      offset: 0,
      primary: null,
      linkStatus: null,
      primaryHost: null,
      primaryPort: null,
      sync: null,
      linkDownSeconds: null,
      replicas: [],
      failoverState: 'no-failover',
    });
  });
});
