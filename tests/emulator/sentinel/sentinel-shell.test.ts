/**
 * From a shell: `redis-sentinel /etc/sentinel.conf` and
 * `redis-server /etc/sentinel.conf --sentinel` load Sentinel's code on
 * first use and start it in the background; redis-cli -p 26379 talks to it.
 */
import { describe, expect, it } from 'vitest';
import { shellWorld, bytes } from '../programs/shell-harness.js';
import type { HostShell } from '../../../emulator/programs/shell.js';
import type { World } from '../../../emulator/world/world.js';

/** Types a line whose command loads code first: waits for the load (a state, not a time), then runs the world until the shell is idle. */
async function runLoading(world: World, shell: HostShell, line: string, out: () => string): Promise<string> {
  const before = out().length;
  shell.run(line);
  for (let i = 0; i < 1000 && shell.busy; i++) {
    await new Promise((r) => setTimeout(r, 0));
    world.runUntil(() => !shell.busy, { maxMs: 1000 });
  }
  expect(shell.busy).toBe(false);
  return out().slice(before);
}

const CONF = 'sentinel monitor mymaster 127.0.0.1 6379 1\nsentinel down-after-milliseconds mymaster 3000\n';

describe('redis-sentinel from the shell', () => {
  it('starts from its config file and answers redis-cli on 26379', async () => {
    const sw = shellWorld({ redis: true });
    sw.world.host('redis').disk.writeFile('/etc/sentinel.conf', bytes(CONF));
    expect(await runLoading(sw.world, sw.shell, 'redis-sentinel /etc/sentinel.conf', () => sw.transcript)).toBe('');
    sw.world.advance(11_000);
    expect(sw.run('redis-cli -p 26379 ping')).toBe('PONG\n');
    expect(sw.run('redis-cli -p 26379 sentinel get-master-addr-by-name mymaster')).toBe('1) "127.0.0.1"\n2) "6379"\n');
    expect(sw.run('redis-cli -p 26379 role')).toBe('1) "sentinel"\n2) 1) "mymaster"\n');
    expect(sw.run('redis-cli -p 26379 info sentinel')).toContain('master0:name=mymaster,status=ok,address=127.0.0.1:6379,slaves=0,sentinels=1');
  });

  it('redis-server --sentinel starts the same, and a missing config is refused', async () => {
    const sw = shellWorld({ redis: true });
    sw.world.host('redis').disk.writeFile('/etc/sentinel.conf', bytes(CONF.replace('6379 1', '6379 2')));
    expect(await runLoading(sw.world, sw.shell, 'redis-server /etc/sentinel.conf --sentinel', () => sw.transcript)).toBe('');
    expect(sw.run('redis-cli -p 26379 sentinel master mymaster')).toContain('"quorum"\n');
    expect(sw.run('redis-sentinel')).toContain('Sentinel needs config file on disk to save state. Exiting...');
    expect(await runLoading(sw.world, sw.shell, 'redis-sentinel /nope.conf', () => sw.transcript)).toContain('Sentinel needs config file on disk to save state. Exiting...');
  });
});
