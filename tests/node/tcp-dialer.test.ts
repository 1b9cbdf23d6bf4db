/**
 * A process of `npm run server` dials real TCP: a module's connection
 * reaches a real listening socket, its bytes come back into the world's
 * loop, and a refused connect reports strerror's text.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { World } from '../../emulator/world/world.js';
import { RedisProcess } from '../../emulator/process/redis-process.js';
import type { OutboundConnection } from '../../emulator/process/outbound.js';
import { bytesFromArray } from '../../emulator/resp/bytes.js';
import { NodeWorldDriver } from '../../src/node/world-driver.js';
import { tcpDialer } from '../../src/node/tcp-dialer.js';

let server: Server | null = null;
const accepted = new Set<Socket>();
let driver: NodeWorldDriver | null = null;

afterEach(async () => {
  driver?.stop();
  driver = null;
  for (const s of accepted) s.destroy();
  accepted.clear();
  await new Promise<void>((resolve) => (server === null ? resolve() : server.close(() => resolve())));
  server = null;
});

/** A process on a world driven in real time, with the TCP dialer. */
function realtimeProcess(): RedisProcess {
  const world = new World({ seed: 1, startUs: Date.now() * 1000 });
  const host = world.addHost('redis', 'native');
  const proc = host.spawn(new RedisProcess(host, ['redis-server', '*:6379'], { config: { save: '' } }));
  expect(proc.start()).toBe(true);
  driver = new NodeWorldDriver(world);
  proc.dialer = tcpDialer(world.kernel, (fn) => driver!.input(fn));
  driver.start();
  return proc;
}

/** A listening socket that answers every read with +PONG, on a free port. */
async function pongServer(): Promise<number> {
  server = createServer((s) => {
    accepted.add(s);
    s.on('data', () => s.write('+PONG\r\n'));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe('the TCP dialer of npm run server', () => {
  it('connects, writes and reads over a real socket', async () => {
    const port = await pongServer();
    const proc = realtimeProcess();
    const got = await new Promise<string>((resolve, reject) => {
      const link = proc.connect('127.0.0.1', port, {
        connected: () => (link as OutboundConnection).write('PING\r\n'),
        data: (bytes) => resolve(bytesFromArray(bytes)),
        closed: (error) => reject(new Error(error ?? 'closed')),
      });
    });
    expect(got).toBe('+PONG\r\n');
  });

  it('reports a refused connection with its strerror text', async () => {
    const port = await pongServer();
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    server = null;
    const proc = realtimeProcess();
    const error = await new Promise<string | null>((resolve) => {
      proc.connect('127.0.0.1', port, { connected: () => {}, data: () => {}, closed: resolve });
    });
    expect(error).toBe('Connection refused');
  });
});
