import { describe, expect, it } from 'vitest';
import type { RedisCliTarget } from '../../../emulator/programs/shell.js';
import { bytes, shellWorld } from './shell-harness.js';

describe('shell: redis-server', () => {
  it('starts in the background from a config file on the disk, with --options on top', () => {
    const { world, run } = shellWorld();
    expect(run('redis-server /etc/redis/redis.conf --port 6380 --maxmemory 10mb')).toBe('');
    const proc = world.redis('redis', 6380)!;
    expect(proc).toBeDefined();
    expect(proc.server.config.get('maxmemory')).toBe('10485760');
    expect(proc.server.config.get('dir')).toBe('/var/lib/redis');
    expect(proc.server.config.get('save')).toBe('3600 1 300 100 60 10000');
    expect(run('redis-cli -p 6380 config get appendfsync')).toBe('1) "appendfsync"\n2) "everysec"\n');
    expect(run('ps -e')).toContain('redis-server\n');
  });

  it('save lines replace the defaults, then add; save "" clears them', () => {
    const { world, run } = shellWorld();
    world.host('redis').disk.writeFile('/root/r.conf', bytes('save 900 1\nsave 60 100\n'));
    run('redis-server /root/r.conf --port 7001');
    expect(world.redis('redis', 7001)!.server.config.get('save')).toBe('900 1 60 100');
    run('redis-server /root/r.conf --port 7002 --save ""');
    expect(world.redis('redis', 7002)!.server.config.get('save')).toBe('');
    run('redis-server --port 7003 --save');
    expect(world.redis('redis', 7003)!.server.config.get('save')).toBe('');
  });

  it('a relative config path and dir are read from the working directory', () => {
    const { world, run } = shellWorld();
    run('mkdir /root/data');
    world.host('redis').disk.writeFile('/root/my.conf', bytes('dir data\nport 7004\n'));
    expect(run('redis-server my.conf')).toBe('');
    expect(world.redis('redis', 7004)!.server.config.get('dir')).toBe('/root/data');
    expect(run('redis-server nosuch.conf')).toMatch(/^\d+:C 01 Jan 2026 00:00:00\.\d{3} # Fatal error, can't open config file '\/root\/nosuch\.conf': No such file or directory\n$/);
  });

  it('a port in use makes the daemon exit quietly; the trace says why', () => {
    const { world, run } = shellWorld({ redis: true });
    expect(run('redis-server --port 6379')).toBe('');
    expect(world.trace.find('log', 'redis').some((e) => e.text.includes('Could not create server TCP listening socket *:6379: bind: Address already in use'))).toBe(true);
    expect([...world.host('redis').processes.values()].filter((p) => p.name === 'redis-server').length).toBe(1);
  });
});

describe('shell: redis-cli', () => {
  it('runs one command and prints it as redis-cli does on a terminal', () => {
    const { run } = shellWorld({ redis: true });
    expect(run('redis-cli ping')).toBe('PONG\n');
    expect(run('redis-cli set k "hello world"')).toBe('OK\n');
    expect(run('redis-cli get k')).toBe('"hello world"\n');
    expect(run('redis-cli --raw get k')).toBe('hello world\n');
    expect(run('redis-cli get nokey')).toBe('(nil)\n');
    expect(run('redis-cli rpush l a b c')).toBe('(integer) 3\n');
    expect(run('redis-cli lrange l 0 -1')).toBe('1) "a"\n2) "b"\n3) "c"\n');
    expect(run('redis-cli incr k')).toBe('(error) ERR value is not an integer or out of range\n');
    expect(run('redis-cli -r 3 incr n')).toBe('(integer) 1\n(integer) 2\n(integer) 3\n');
    expect(run('redis-cli -n 3 set x 1')).toBe('OK\n');
    expect(run('redis-cli -3 hgetall nohash')).toBe('(empty hash)\n');
    expect(run('redis-cli lrange l 0 -1 > /tmp/out')).toBe('');
    expect(run('cat /tmp/out')).toBe('a\nb\nc\n');
  });

  it('blocking commands wait in virtual time', () => {
    const { world, run } = shellWorld({ redis: true });
    const t0 = world.kernel.now;
    expect(run('redis-cli blpop q 2')).toBe('(nil)\n');
    expect(world.kernel.now - t0).toBeGreaterThanOrEqual(2_000_000);
    expect(world.kernel.now - t0).toBeLessThan(2_100_000);
  });

  it('reaches other hosts by name, and says when it cannot connect', () => {
    const { world, run } = shellWorld({ hosts: ['app', 'db'] });
    world.startRedis('db');
    expect(run('redis-cli -h db ping')).toBe('PONG\n');
    expect(run('redis-cli -h 10.0.0.3 ping')).toBe('PONG\n');
    expect(run('redis-cli ping')).toBe('Could not connect to Redis at 127.0.0.1:6379: Connection refused\n');
    expect(run('redis-cli -h nowhere ping')).toBe('Could not connect to Redis at nowhere:6379: Name or service not known\n');
    expect(run('redis-cli -h db -p 1 ping')).toBe('Could not connect to Redis at db:1: Connection refused\n');
    expect(run('redis-cli --bogus')).toBe("Unrecognized option or bad number of args for: '--bogus'\n");
    expect(run('redis-cli -v')).toBe('redis-cli 7.0.15\n');
  });

  it('SHUTDOWN closes the connection without a word; a killed client is told', () => {
    const { run } = shellWorld({ redis: true });
    expect(run('redis-cli shutdown')).toBe('');
    expect(run('redis-cli ping')).toBe('Could not connect to Redis at 127.0.0.1:6379: Connection refused\n');
  });

  it('MONITOR streams until Ctrl-C', () => {
    const sw = shellWorld({ redis: true });
    sw.shell.run('redis-cli monitor');
    sw.world.advance(10);
    void sw.world.connect({ from: 'redis', to: 'redis:6379' }).set('k', 'v');
    sw.world.advance(10);
    expect(sw.shell.busy).toBe(true);
    sw.shell.interrupt();
    expect(sw.shell.busy).toBe(false);
    expect(sw.transcript).toMatch(/^OK\n1767225600\.\d{6} \[0 127\.0\.0\.1:\d+\] "set" "k" "v"\n\^C\n$/);
  });

  it('without a command, asks the terminal for an interactive session', () => {
    let asked: RedisCliTarget | null = null;
    const { run } = shellWorld({ redis: true, shell: { onRedisCli: (t) => ((asked = t), true) } });
    expect(run('redis-cli -p 6380 -n 2')).toBe('');
    expect(asked).toEqual({ host: 'redis', shownHost: '127.0.0.1', port: 6380, db: 2, resp3: false, raw: null });
    const bare = shellWorld({ redis: true });
    expect(bare.run('redis-cli')).toBe('redis-cli: the interactive mode is not available in this shell; give a command (redis-cli PING)\n');
  });
});

describe('shell: redis-benchmark', () => {
  it('runs the simulated tool in the foreground', () => {
    const { run, shell } = shellWorld({ redis: true });
    const out = run('redis-benchmark -q -n 1000 -t ping');
    expect(out).toMatch(/PING_INLINE: [\d.]+ requests per second, p50=[\d.]+ msec/);
    expect(shell.busy).toBe(false);
    expect(run('redis-benchmark --bogus')).toContain('Invalid option "--bogus" or option argument missing');
  });

  it('Ctrl-C stops it', () => {
    const sw = shellWorld({ redis: true });
    sw.shell.run('redis-benchmark -n 10000000 -t set');
    sw.world.advance(50);
    expect(sw.shell.busy).toBe(true);
    sw.shell.interrupt();
    sw.world.advance(1);
    expect(sw.shell.busy).toBe(false);
    expect(sw.transcript.endsWith('^C\n')).toBe(true);
    expect(sw.run('echo $?')).toBe('130\n');
  });
});

describe('shell: redis-check-rdb and redis-check-aof', () => {
  it('check the files redis-server left on the disk', () => {
    const { run } = shellWorld({ redis: true });
    run('redis-cli set greeting hello');
    run('redis-cli save');
    const out = run('redis-check-rdb /var/lib/redis/dump.rdb');
    expect(out).toContain('[offset 0] Checking RDB file /var/lib/redis/dump.rdb\n');
    expect(out).toContain('\\o/ RDB looks OK! \\o/\n');
    expect(run('redis-check-rdb')).toBe('Usage: redis-check-rdb <rdb-file-name>\n');
    expect(run('redis-check-aof')).toBe('Usage: redis-check-aof [--fix|--truncate-to-timestamp $timestamp] <file.manifest|file.aof>\n');
    run('echo "*1" > /tmp/bad.aof');
    expect(run('redis-check-aof /tmp/bad.aof')).toContain('bad.aof');
  });
});
