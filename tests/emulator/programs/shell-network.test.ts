import { describe, expect, it } from 'vitest';
import { formatRate, formatSize, ProgressMeter } from '../../../emulator/programs/shell/progress-meter.js';
import { formatG } from '../../../emulator/programs/shell/ping.js';
import { bytes, shellWorld } from './shell-harness.js';

describe('shell: ping', () => {
  it('ping -c 3 prints iputils lines with the link\'s round trip', () => {
    const { world, run } = shellWorld({ hosts: ['redis', 'replica'] });
    const t0 = world.kernel.now;
    expect(run('ping -c 3 replica')).toBe(
      'PING replica (10.0.0.3) 56(84) bytes of data.\n' +
        '64 bytes from replica (10.0.0.3): icmp_seq=1 ttl=64 time=0.274 ms\n' +
        '64 bytes from replica (10.0.0.3): icmp_seq=2 ttl=64 time=0.274 ms\n' +
        '64 bytes from replica (10.0.0.3): icmp_seq=3 ttl=64 time=0.274 ms\n' +
        '\n--- replica ping statistics ---\n' +
        '3 packets transmitted, 3 received, 0% packet loss, time 2000ms\n' +
        'rtt min/avg/max/mdev = 0.274/0.274/0.274/0.000 ms\n',
    );
    // It ends when the last reply is in.
    expect(world.kernel.now - t0).toBe(2_000_274);
  });

  it('over the VPN profile a ping takes its 48 ms round trip plus the tunnel\'s cost', () => {
    const { run } = shellWorld({ hosts: ['redis', 'far'] });
    run('sim link redis far vpn');
    expect(run('ping -c 1 10.0.0.3')).toBe(
      'PING 10.0.0.3 (10.0.0.3) 56(84) bytes of data.\n' +
        '64 bytes from 10.0.0.3: icmp_seq=1 ttl=64 time=55.1 ms\n' +
        '\n--- 10.0.0.3 ping statistics ---\n' +
        '1 packets transmitted, 1 received, 0% packet loss, time 0ms\n' +
        'rtt min/avg/max/mdev = 55.146/55.146/55.146/0.000 ms\n',
    );
  });

  it('a partition loses every echo request: no replies, 100% loss after the linger time', () => {
    const { world, run } = shellWorld({ hosts: ['redis', 'replica'] });
    expect(run('sim partition redis replica')).toBe('network cut between redis and replica\n');
    const t0 = world.kernel.now;
    expect(run('ping -c 3 replica')).toBe(
      'PING replica (10.0.0.3) 56(84) bytes of data.\n' +
        '\n--- replica ping statistics ---\n' +
        '3 packets transmitted, 0 received, 100% packet loss, time 2000ms\n\n',
    );
    // Two seconds of sending, then ten of waiting for an answer.
    expect(world.kernel.now - t0).toBe(12_000_000);
    run('sim heal');
    expect(run('ping -c 1 replica')).toContain('1 received');
  });

  it('a one-way cut loses the replies; a dead host answers nothing', () => {
    const { run } = shellWorld({ hosts: ['redis', 'replica'] });
    run('sim partition replica redis --one-way');
    expect(run('ping -c 2 -W 1 replica')).toContain('2 packets transmitted, 0 received, 100% packet loss');
    run('sim heal');
    run('sim power-loss replica');
    expect(run('ping -c 2 -W 1 replica')).toContain('2 packets transmitted, 0 received, 100% packet loss');
  });

  it('Ctrl-C ends ping with its statistics', () => {
    const sw = shellWorld();
    sw.shell.run('ping localhost');
    expect(sw.shell.busy).toBe(true);
    sw.world.advance(2500);
    sw.shell.interrupt();
    expect(sw.shell.busy).toBe(false);
    expect(sw.transcript).toBe(
      'PING localhost(localhost (::1)) 56 data bytes\n' +
        '64 bytes from localhost (::1): icmp_seq=1 ttl=64 time=0.024 ms\n' +
        '64 bytes from localhost (::1): icmp_seq=2 ttl=64 time=0.024 ms\n' +
        '64 bytes from localhost (::1): icmp_seq=3 ttl=64 time=0.024 ms\n' +
        '^C\n--- localhost ping statistics ---\n' +
        '3 packets transmitted, 3 received, 0% packet loss, time 2000ms\n' +
        'rtt min/avg/max/mdev = 0.024/0.024/0.024/0.000 ms\n',
    );
  });

  it('ping\'s errors', () => {
    const { run } = shellWorld();
    expect(run('ping')).toBe('ping: usage error: Destination address required\n');
    expect(run('ping nowhere')).toBe('ping: nowhere: Name or service not known\n');
    expect(run('ping -c 0 redis')).toBe("ping: invalid argument: '0': out of range: 1 <= value <= 9223372036854775807\n");
    expect(run('ping -c x redis')).toBe("ping: invalid argument: 'x'\n");
    expect(run('ping -c 1 redis')).toContain('PING redis (127.0.1.1) 56(84) bytes of data.\n64 bytes from redis (127.0.1.1): icmp_seq=1');
  });

  it('formats loss like printf %g', () => {
    expect([0, 100, Math.fround(100 / 3), Math.fround(200 / 3), 12.5, 1e-5].map(formatG)).toEqual(['0', '100', '33.3333', '66.6667', '12.5', '1e-05']);
  });
});

describe('shell: scp', () => {
  function twoHosts(link: 'lan' | 'vpn') {
    const sw = shellWorld({ hosts: ['redis', 'backup'] });
    sw.run(`sim link redis backup ${link}`);
    sw.world.host('redis').disk.writeFile('/var/lib/redis/dump.rdb', new Uint8Array(225_000).fill(0x52));
    return sw;
  }

  it('225 KB over the 1.8 Mbit VPN takes about a second, and the meter says so', () => {
    const { world, run } = twoHosts('vpn');
    const t0 = world.kernel.now;
    const out = run('scp /var/lib/redis/dump.rdb backup:/var/lib/redis/');
    const seconds = (world.kernel.now - t0) / 1e6;
    // The bytes alone need 225000 * 8 / 1.8e6 = 1.0 s; the handshake and
    // the tunnel's per-packet cost add their round trips.
    expect(seconds).toBeGreaterThan(1.0);
    expect(seconds).toBeLessThan(1.6);
    const lines = out.split('\r').filter((l) => l !== '');
    expect(lines[0]).toBe('dump.rdb                                        0%    0     0.0KB/s   --:-- ETA');
    expect(lines[lines.length - 1]).toBe('dump.rdb                                      100%  220KB 196.5KB/s   00:01    \n');
    expect(world.host('backup').disk.readFile('/var/lib/redis/dump.rdb')).toEqual(new Uint8Array(225_000).fill(0x52));
  });

  it('copies back, and between two other hosts through this one', () => {
    const { world, run } = twoHosts('lan');
    run('scp /var/lib/redis/dump.rdb backup:copy.rdb');
    expect(world.host('backup').disk.stat('/root/copy.rdb').size).toBe(225_000);
    run('rm /var/lib/redis/dump.rdb');
    expect(run('scp -q backup:copy.rdb /var/lib/redis/dump.rdb')).toBe('');
    expect(world.host('redis').disk.stat('/var/lib/redis/dump.rdb').size).toBe(225_000);
    run('sim add-host third');
    expect(run('scp -q backup:copy.rdb third:/tmp/')).toBe('');
    expect(world.host('third').disk.stat('/tmp/copy.rdb').size).toBe(225_000);
  });

  it('stalls in a partition and finishes once it heals', () => {
    const { world, shell } = twoHosts('vpn');
    shell.run('scp -q /var/lib/redis/dump.rdb backup:/tmp/');
    world.advance(400);
    world.network.partition('redis', 'backup');
    world.advance(20_000);
    expect(shell.busy).toBe(true);
    world.network.heal();
    world.runUntil(() => !shell.busy, { maxMs: 10_000 });
    expect(shell.busy).toBe(false);
    expect(world.host('backup').disk.stat('/tmp/dump.rdb').size).toBe(225_000);
  });

  it('prints OpenSSH\'s errors', () => {
    const { run } = twoHosts('lan');
    expect(run('scp')).toContain('usage: scp [-346ABCOpqRrsTv]');
    expect(run('scp nope backup:')).toBe('scp: stat local "nope": No such file or directory\r\n');
    expect(run('scp backup:nope /tmp/')).toBe('scp: nope: No such file or directory\r\n');
    expect(run('scp /var/lib/redis/dump.rdb backup:/nodir/x')).toBe('scp: dest open "/nodir/x": No such file\r\nscp: failed to upload file /var/lib/redis/dump.rdb to /nodir/x\r\n');
    expect(run('scp -q backup:/etc/redis/redis.conf /nodir/x')).toBe('scp: open local "/nodir/x": No such file or directory\r\n');
    expect(run('scp /var/lib/redis/dump.rdb nohost:')).toBe('ssh: Could not resolve hostname nohost: Name or service not known\r\nscp: Connection closed\r\n');
    expect(run('scp /etc backup:')).toBe('scp: /etc is not a regular file\r\nscp: failed to upload file /etc to \r\n');
    expect(run('scp nope other')).toBe("cp: cannot stat 'nope': No such file or directory\n");
  });

  it('a dead host times out after the SYN retries', () => {
    const { world, run } = twoHosts('lan');
    run('sim power-loss backup');
    const t0 = world.kernel.now;
    expect(run('scp -q /var/lib/redis/dump.rdb backup:')).toBe('ssh: connect to host backup port 22: Connection timed out\r\nscp: Connection closed\r\n');
    expect(world.kernel.now - t0).toBeGreaterThanOrEqual(127_000_000);
  });

  it('draws OpenSSH 9.2\'s progress meter', () => {
    expect(formatSize(1234)).toBe('1234  ');
    expect(formatSize(225_000)).toBe(' 220KB');
    expect(formatRate(0)).toBe('  0.0KB');
    expect(formatRate(225_000)).toBe('219.7KB');
    expect(formatRate(5_000_000)).toBe('  4.8MB');
    const m = new ProgressMeter('f', 0, 0);
    expect(m.refresh(0, 0)).toBe('\rf' + ' '.repeat(44) + ' 100%    0     0.0KB/s   00:00    ');
  });
});

describe('shell: files written by redirection travel with scp', () => {
  it('a file made with echo reaches the other disk byte for byte', () => {
    const { world, run } = shellWorld({ hosts: ['redis', 'b'] });
    run('echo "hello, other machine" > /tmp/msg');
    run('scp -q /tmp/msg b:/tmp/msg');
    expect(world.host('b').disk.readFile('/tmp/msg')).toEqual(bytes('hello, other machine\n'));
  });
});
