import { describe, expect, it } from 'vitest';
import { shellWorld } from './shell-harness.js';

/** Opens connections from app to redis:6379, closing each at once, until one fails; returns how many succeeded and the error. */
async function connectUntilRefused(world: ReturnType<typeof shellWorld>['world'], limit: number): Promise<{ done: number; error: string | null }> {
  let done = 0;
  while (done < limit) {
    const r = world.connect({ from: 'app', to: 'redis:6379' });
    try {
      await world.settle(r.call('PING'));
    } catch (e) {
      r.disconnect();
      return { done, error: (e as Error).message };
    }
    r.disconnect();
    world.advance(1);
    done += 1;
  }
  return { done, error: null };
}

describe('shell: sysctl net.ipv4.ip_local_port_range', () => {
  it('reads Linux\'s default range, sets a narrower one, refuses a reversed one, and reads missing keys as missing files', () => {
    const { run } = shellWorld({ hosts: ['app'] });
    expect(run('sysctl net.ipv4.ip_local_port_range')).toBe('net.ipv4.ip_local_port_range = 32768\t60999\n');
    expect(run('sysctl -w net.ipv4.ip_local_port_range="50000 50999"')).toBe('net.ipv4.ip_local_port_range = 50000 50999\n');
    expect(run('sysctl -n net/ipv4/ip_local_port_range')).toBe('50000\t50999\n');
    expect(run('sysctl -w net.ipv4.ip_local_port_range="5 3"')).toBe('sysctl: setting key "net.ipv4.ip_local_port_range": Invalid argument\n');
    expect(run('sysctl -w net.ipv4.ip_local_port_range')).toBe('sysctl: "net.ipv4.ip_local_port_range" must be of the form name=value\n');
    expect(run('sysctl net.ipv4.foo')).toBe('sysctl: cannot stat /proc/sys/net/ipv4/foo: No such file or directory\n');
    expect(run('echo $?')).toBe('1\n');
    expect(run('sysctl -n net.ipv4.ip_local_port_range')).toBe('50000\t50999\n');
  });

  it('a narrowed range runs out after as many connections as it has ports, TIME_WAIT holding each for 60 s; a reboot restores the default', async () => {
    const { world, run } = shellWorld({ hosts: ['app', 'redis'] });
    world.startRedis('redis', { config: { save: '' } });
    run('sysctl -w net.ipv4.ip_local_port_range="50000 50099"');
    const first = await connectUntilRefused(world, 1000);
    expect(first).toEqual({ done: 100, error: 'Cannot assign requested address' });
    expect(world.network.timeWaitCount('app')).toBe(100);
    // Once the first ports leave TIME_WAIT, connections succeed again.
    world.advance(60_000);
    expect((await connectUntilRefused(world, 10)).done).toBe(10);
    world.powerOff('app');
    world.powerOn('app');
    world.advance(1000);
    expect(world.network.portRange('app')).toEqual({ first: 32768, last: 60999 });
    expect(run('sysctl -n net.ipv4.ip_local_port_range')).toBe('32768\t60999\n');
  });
});
