import { describe, expect, it } from 'vitest';
import { RealtimeDriver } from '../../../emulator/sim/realtime.js';
import { World } from '../../../emulator/world/world.js';
import { HostShell, registerShellProgram } from '../../../emulator/programs/shell.js';
import { installRedisHost } from '../../../emulator/programs/host-setup.js';
import { shellWorld } from './shell-harness.js';

describe('shell: sim verbs', () => {
  it('sim hosts and sim links describe the world', () => {
    const { run } = shellWorld({ hosts: ['redis', 'replica'], redis: true });
    expect(run('sim hosts')).toBe(
      'HOST     ADDRESS   PROFILE  POWER  PROCESSES\n' +
        'redis    10.0.0.2  metal    on     1000 redis-server *:6379, 1001 -bash\n' +
        'replica  10.0.0.3  metal    on     -\n',
    );
    expect(run('sim links')).toBe('no links used yet: hosts talk over lan by default, and over localhost within a host\n');
    run('sim link redis replica vpn');
    run('sim partition redis replica --one-way');
    expect(run('sim links')).toBe('LINK               PROFILE                 CUT\nredis <-> replica  vpn: rtt 48ms, 1.8mbit  redis -> replica\n');
  });

  it('latency and bandwidth change one property of a link', () => {
    const { world, run } = shellWorld({ hosts: ['a', 'b'] });
    expect(run('sim latency a b 10ms')).toBe('a <-> b: lan*: rtt 10ms, 1gbit\n');
    expect(run('sim bandwidth a b 1.8mbit')).toBe('a <-> b: lan*: rtt 10ms, 1.8mbit\n');
    expect(world.network.link('a', 'b').profile.rttUs).toBe(10_000);
    expect(world.network.link('a', 'b').profile.bandwidthBps).toBe(1.8e6);
    expect(run('ping -c 1 -q b')).toContain('rtt min/avg/max/mdev = 10.748/10.748/10.748/0.000 ms');
    expect(run('sim latency a b soon')).toBe("sim latency: cannot read 'soon' as a duration (48ms, 250us, 1.5s)\n");
    expect(run('sim link a b fiber')).toBe("sim link: unknown profile 'fiber' (unix, localhost, lan, vpn)\n");
    expect(run('sim partition a nowhere')).toBe("sim: no host named 'nowhere' (sim hosts lists them)\n");
    expect(run('sim partition a')).toBe('usage: sim partition A B [--one-way]\n');
  });

  it('power-loss and power-on, seen from another host', () => {
    const { world, run } = shellWorld({ hosts: ['app', 'db'] });
    world.startRedis('db');
    expect(run('sim power-loss db')).toBe('db: power cut; every process died and what was not on the disk yet is lost\n');
    expect(run('redis-cli -h db ping', 200_000)).toBe('Could not connect to Redis at db:6379: Connection timed out\n');
    expect(run('sim power-on db')).toBe('db: booted; nothing runs until you start it\n');
    expect(run('redis-cli -h db ping')).toBe('Could not connect to Redis at db:6379: Connection refused\n');
    expect(run('sim power-on db')).toBe('db is already on\n');
  });

  it('disk faults: full, failed writes, flipped bytes', () => {
    const { world, run } = shellWorld();
    expect(run('echo x > /root/f')).toBe('');
    expect(run('sim disk-full redis')).toBe('redis: disk full (writes that need space fail with ENOSPC)\n');
    expect(run('echo more >> /root/f')).toBe('bash: /root/f: write error: No space left on device\n');
    expect(run('sim disk-full redis off')).toBe('redis: disk has space again\n');
    expect(run('sim disk-error redis write')).toBe('redis: the next write call will fail with EIO\n');
    expect(run('echo y > /root/g')).toBe('bash: /root/g: write error: Input/output error\n');
    run('echo ABCD > /root/h');
    expect(run('sim flip-byte redis /root/h 1')).toBe('redis: flipped the byte at offset 1 of /root/h\n');
    expect(world.host('redis').disk.readFile('/root/h')[1]).toBe(0x42 ^ 0xff);
    expect(run('sim flip-byte redis h 99')).toBe('sim flip-byte: h: no byte at offset 99 of /root/h (5 bytes)\n');
    expect(run('sim flip-byte redis /nope')).toBe('sim flip-byte: /nope: No such file or directory\n');
  });

  it('sim advance, time and trace', () => {
    const { run } = shellWorld();
    expect(run('sim advance 5s')).toBe('2026-01-01 00:00:05.001000 UTC (5.001000 s since the world began)\n');
    expect(run('sim time')).toBe('2026-01-01 00:00:05.001000 UTC (5.001000 s since the world began)\n');
    run('sim partition redis redis');
    expect(run('sim trace 1')).toBe('5001.000 net partition redis <-> redis\n');
    expect(run('sim speed 10')).toBe('sim speed: this world runs only when told to (sim advance); there is no speed to set\n');
    expect(run('sim frobnicate')).toBe("sim: unknown verb 'frobnicate' (sim help lists them)\n");
    expect(run('sim')).toContain('sim partition A B [--one-way]');
  });

  it('speed, pause and resume drive the realtime driver', () => {
    const world = new World({ seed: 1 });
    world.addHost('redis');
    installRedisHost(world, 'redis');
    let wall = 0;
    const driver = new RealtimeDriver(world.kernel, () => wall);
    let out = '';
    const shell = new HostShell(world, 'redis', (t) => (out += t), { driver });
    shell.run('sim speed 10');
    expect(out).toBe('virtual time runs at 10x\n');
    wall = 100;
    driver.tick();
    expect(world.kernel.now - world.kernel.startUs).toBe(1_000_000);
    out = '';
    shell.run('sim pause');
    expect(out).toMatch(/^virtual time paused at 2026-01-01 00:00:01\.000000 UTC/);
    wall = 500;
    driver.tick();
    expect(world.kernel.now - world.kernel.startUs).toBe(1_000_000);
    out = '';
    shell.run('sim advance 2s');
    shell.run('sim resume');
    expect(out).toBe('2026-01-01 00:00:03.000000 UTC (3.000000 s since the world began)\nvirtual time runs again at 10x\n');
    expect(() => shell.run('sim speed 1000')).not.toThrow();
  });

  it('add-host and ssh move the shell to a new machine', () => {
    const { shell, run } = shellWorld();
    expect(run('sim add-host cache kvm')).toBe('cache (10.0.0.3) added: kvm, ssd disk\n');
    expect(run('sim add-host cache')).toBe('sim add-host: host cache already exists\n');
    expect(run('sim add-host x laptop')).toMatch(/^sim add-host: unknown profile 'laptop'/);
    expect(run('sim ssh cache')).toBe('');
    expect(shell.prompt).toBe('root@cache:~# ');
    expect(run('hostname')).toBe('cache\n');
    expect(run('redis-server --port 6400')).toBe('');
    expect(run('redis-cli -p 6400 ping')).toBe('PONG\n');
    expect(run('sim ssh nowhere')).toBe("sim: no host named 'nowhere' (sim hosts lists them)\n");
  });

  it('sim lines run at once while a program runs; other lines wait their turn', () => {
    const sw = shellWorld({ hosts: ['redis', 'replica'] });
    sw.shell.run('ping -c 3 replica');
    sw.shell.run('echo typed ahead');
    sw.world.advance(500);
    sw.shell.run('sim partition redis replica');
    expect(sw.transcript).toBe(
      'PING replica (10.0.0.3) 56(84) bytes of data.\n64 bytes from replica (10.0.0.3): icmp_seq=1 ttl=64 time=0.274 ms\nnetwork cut between redis and replica\n',
    );
    sw.world.runUntil(() => !sw.shell.busy, { maxMs: 60_000 });
    expect(sw.transcript).toContain('3 packets transmitted, 1 received, 66.6667% packet loss, time 2000ms\nrtt min/avg/max/mdev = 0.274/0.274/0.274/0.000 ms\ntyped ahead\n');
  });
});

describe('shell: determinism and checkpoints', () => {
  const script: Array<[number, string]> = [
    [0, 'redis-server /etc/redis/redis.conf'],
    [10, 'redis-cli set k v'],
    [20, 'sim link redis replica vpn'],
    [30, 'ping -c 2 replica'],
    [3000, 'echo note > /var/lib/redis/note'],
    [3100, 'scp /var/lib/redis/note replica:/tmp/'],
    [5000, 'ps aux'],
    [5100, 'kill -9 1002'],
    [5200, 'ls -l /var/lib/redis'],
  ];

  function play(seed: number): { out: string; world: World } {
    const world = new World({ seed });
    for (const name of ['redis', 'replica']) {
      world.addHost(name);
      installRedisHost(world, name);
    }
    let out = '';
    const shell = new HostShell(world, 'redis', (t) => (out += t));
    for (const [atMs, line] of script) {
      world.advance(atMs - (world.kernel.now - world.kernel.startUs) / 1000);
      shell.run(line);
    }
    world.runUntil(() => !shell.busy, { maxMs: 60_000 });
    world.advance(1000);
    return { out, world };
  }

  it('the same seed and the same lines at the same virtual times give the same output', () => {
    const a = play(42);
    const b = play(42);
    expect(a.out).toBe(b.out);
    expect(a.world.trace.hash()).toBe(b.world.trace.hash());
    expect(a.out).toContain('2 packets transmitted, 2 received');
    expect(a.out).toContain('note                                          100%');
  });

  it('a restored checkpoint has the same shell, files and processes, and goes on the same way', () => {
    const { out, world } = play(7);
    const copy = World.restore(world.checkpoint(), registerShellProgram);
    const [restored] = HostShell.all(copy);
    const [original] = HostShell.all(world);
    let replayed = '';
    expect(restored!.attach((t) => (replayed += t))).toBe(out);
    expect(copy.host('replica').disk.readFile('/tmp/note')).toEqual(world.host('replica').disk.readFile('/tmp/note'));
    let more = '';
    original!.attach((t) => (more += t));
    for (const [shell, w] of [[original!, world], [restored!, copy]] as const) {
      shell.run('ps -ef');
      shell.run('ping -c 1 replica');
      w.runUntil(() => !shell.busy, { maxMs: 10_000 });
    }
    expect(replayed).toBe(more);
    expect(copy.trace.hash()).toBe(world.trace.hash());
  });
});
