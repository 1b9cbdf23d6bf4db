/**
 * A process's own connections (services.connect): a module dials a
 * host:port over the simulated network, writes, reads what arrives inside
 * the process's passes, learns of refused connects and closes, and can
 * hand a connection over to the server as a client, as a replica does
 * with its link to its primary.
 */
import { describe, expect, it } from 'vitest';
import { World } from '../../../emulator/world/world.js';
import { RedisProcess } from '../../../emulator/process/redis-process.js';
import type { ProcessModule, ProcessServices } from '../../../emulator/process/services.js';
import type { OutboundConnection } from '../../../emulator/process/outbound.js';
import { bytesFromArray } from '../../../emulator/resp/bytes.js';
import type { Socket } from '../../../emulator/sim/network.js';

/** A module that records what happens to one connection it opens. */
class Dialler implements ProcessModule {
  readonly events: string[] = [];
  link: OutboundConnection | string | null = null;
  exited = false;
  constructor(readonly p: ProcessServices) {}

  exit(): void {
    this.exited = true;
  }

  dial(host: string, port: number, onConnect: (link: OutboundConnection) => void = () => {}): void {
    this.link = this.p.connect(host, port, {
      connected: () => {
        this.events.push(`connected at ${this.p.nowUs()}`);
        onConnect(this.link as OutboundConnection);
      },
      data: (bytes) => this.events.push(`data ${JSON.stringify(bytesFromArray(bytes))}`),
      closed: (error) => this.events.push(`closed ${error ?? 'cleanly'}`),
    });
  }
}

function worldWithTwoHosts(): { world: World; proc: RedisProcess; dialler: Dialler } {
  const world = new World({ seed: 3 });
  world.addHost('A', 'metal');
  world.addHost('B', 'metal');
  world.link('A', 'B', 'lan');
  const host = world.host('A');
  const proc = host.spawn(new RedisProcess(host, ['redis-server', '*:6379'], { config: { save: '', 'enable-debug-command': 'yes' } }));
  const dialler = proc.addModule((s) => new Dialler(s));
  expect(proc.start()).toBe(true);
  return { world, proc, dialler };
}

describe('outbound connections of a process', () => {
  it('dials another server by host name, writes, and reads its reply', () => {
    const { world, dialler } = worldWithTwoHosts();
    world.startRedis('B');
    dialler.dial('B', 6379, (link) => link.write('PING\r\n'));
    world.advance(50);
    expect(dialler.events).toHaveLength(2);
    expect(dialler.events[0]).toMatch(/^connected at \d+$/);
    expect(dialler.events[1]).toBe('data "+PONG\\r\\n"');
    // The command reached B's server from A's address.
    const info = world.redis('B')!.server.clients;
    expect([...info.values()].map((c) => c.address.addr.split(':')[0])).toEqual([world.host('A').ip]);
  });

  it('resolves addresses and the loopback names as a resolver would', () => {
    const { world, dialler } = worldWithTwoHosts();
    world.startRedis('B', { port: 6380 });
    dialler.dial(world.host('B').ip, 6380, (link) => link.write('ECHO hi\r\n'));
    world.advance(50);
    expect(dialler.events.at(-1)).toBe('data "$2\\r\\nhi\\r\\n"');
    const again = new Dialler(dialler.p);
    again.dial('localhost', 6379, (link) => link.write('PING\r\n'));
    world.advance(50);
    expect(again.events.at(-1)).toBe('data "+PONG\\r\\n"');
  });

  it('reports a refused connect and a name that does not resolve', () => {
    const { world, dialler } = worldWithTwoHosts();
    dialler.dial('B', 6379);
    world.advance(50);
    expect(dialler.events).toEqual(['closed Connection refused']);
    const unknown = new Dialler(dialler.p);
    unknown.dial('nowhere', 6379);
    expect(unknown.link).toBe('Name or service not known');
  });

  it('hears of the peer closing the connection, and nothing after its own close', () => {
    const { world, dialler } = worldWithTwoHosts();
    world.startRedis('B');
    dialler.dial('B', 6379, (link) => link.write('QUIT\r\n'));
    world.advance(50);
    expect(dialler.events.slice(1)).toEqual(['data "+OK\\r\\n"', 'closed cleanly']);
    const closer = new Dialler(dialler.p);
    closer.dial('B', 6379, (link) => {
      link.write('PING\r\n');
      link.close();
    });
    world.advance(50);
    expect(closer.events).toHaveLength(1);
    expect((closer.link as OutboundConnection).state).toBe('closed');
  });

  it('delivers its events inside a pass of the event loop, once the thread is free', () => {
    const { world, proc } = worldWithTwoHosts();
    world.startRedis('B');
    const app = world.connect({ from: 'B', to: 'A:6379' });
    const seen: Array<[string, number]> = [];
    const link = proc.connect('B', 6379, {
      connected: () => {
        seen.push(['connected', world.kernel.now]);
        // A slow command keeps A's thread busy when B's reply arrives.
        void app.call('DEBUG', 'SLEEP', '0.05');
        (link as OutboundConnection).write('PING\r\n');
      },
      data: () => seen.push(['data', world.kernel.now]),
      closed: () => {},
    });
    world.advance(200);
    expect(seen.map(([what]) => what)).toEqual(['connected', 'data']);
    expect(seen[1]![1] - seen[0]![1]).toBeGreaterThanOrEqual(50_000);
  });

  it('becomes a client of the server: the peer sends commands and reads the replies', () => {
    const { world, proc, dialler } = worldWithTwoHosts();
    // A bare listener on B that sends a command as soon as A connects, as a primary streams writes.
    let peer: Socket | null = null;
    const received: string[] = [];
    world.host('B').listen(7000, (s) => {
      peer = s;
      s.onData = (d) => received.push(bytesFromArray(d));
      s.write('*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n');
    });
    dialler.dial('B', 7000, (link) => {
      link.becomeClient(new Uint8Array([...'*1\r\n$4\r\nPING\r\n'].map((c) => c.charCodeAt(0))));
    });
    world.advance(50);
    expect(peer).not.toBeNull();
    expect(received.join('')).toBe('+PONG\r\n+OK\r\n');
    expect(proc.server.dbs[0]!.size).toBe(1);
    // Its events stopped when it became a client.
    expect(dialler.events).toHaveLength(1);
  });

  it('closes its connections when the process is killed', () => {
    const { world, proc, dialler } = worldWithTwoHosts();
    world.startRedis('B');
    dialler.dial('B', 6379);
    world.advance(50);
    expect(world.redis('B')!.server.clients.size).toBe(1);
    proc.signal('KILL');
    world.advance(50);
    expect(dialler.exited).toBe(true);
    expect(world.redis('B')!.server.clients.size).toBe(0);
  });
});

describe('time events of a process', () => {
  it('runs a task after its delay, inside a pass, unless cancelled', () => {
    const { world, proc, dialler } = worldWithTwoHosts();
    const ran: number[] = [];
    const start = world.kernel.now;
    dialler.p.after(10_000, () => ran.push(proc.nowUs() - start));
    const cancel = dialler.p.after(20_000, () => ran.push(-1));
    cancel();
    world.advance(50);
    expect(ran).toHaveLength(1);
    expect(ran[0]).toBeGreaterThanOrEqual(10_000);
  });

  it('drops the tasks of a process that has ended', () => {
    const { world, proc, dialler } = worldWithTwoHosts();
    let ran = false;
    dialler.p.after(10_000, () => (ran = true));
    proc.signal('KILL');
    world.advance(50);
    expect(ran).toBe(false);
  });
});
