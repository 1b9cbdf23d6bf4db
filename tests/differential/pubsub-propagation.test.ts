/**
 * Where PUBLISH goes besides its subscribers, through `npm run server` and
 * redis-server 7.0.15 side by side: to replicas (so their subscribers get
 * the message too) and never to the AOF, with the MULTI/EXEC wrapping
 * counted over both (src/server.c propagatePendingCommands). Before any
 * replica has asked for the stream there is no backlog, so PUBLISH is not
 * propagated at all and cannot make a transaction look bigger to the AOF.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runServer, type RunningServer } from '../../src/node/server-main.js';
import { encodeCommand } from '../../emulator/resp/encode.js';
import { freePort, RawConnection, startRealRedis } from '../support/real-redis.js';
import { HAVE_REAL_REDIS, skipNotice } from './availability.js';

const COMMON = ['--save', '', '--appendonly', 'yes', '--appendfsync', 'always', '--repl-ping-replica-period', '3600', '--repl-diskless-sync-delay', '0'];

interface Side {
  port: number;
  dir: string;
  stop(): Promise<void>;
}

async function startReal(): Promise<Side> {
  const r = await startRealRedis(COMMON);
  return { port: r.port, dir: r.dir, stop: () => r.stop() };
}

async function startEmulator(): Promise<Side> {
  const dir = mkdtempSync(join(tmpdir(), 'rw-pubsub-emu-'));
  const port = await freePort();
  const cwd = process.cwd();
  const r = await runServer(['--port', String(port), '--dir', dir, ...COMMON], { stdout: () => {} }).finally(() => process.chdir(cwd));
  if (typeof r === 'number') throw new Error('npm run server did not start');
  const running: RunningServer = r;
  return {
    port,
    dir,
    stop: async () => {
      await running.shutdown();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The incremental AOF file's bytes. */
function incrAof(dir: string): string {
  const sub = join(dir, 'appendonlydir');
  const name = readdirSync(sub).find((f) => f.endsWith('.incr.aof'));
  return name === undefined ? '<none>' : readFileSync(join(sub, name), 'latin1');
}

/** A raw peer that sends SYNC and keeps what follows the RDB: the command stream. */
class SyncPeer {
  bytes = '';
  private constructor(private readonly socket: Socket) {
    socket.on('data', (d: Buffer) => (this.bytes += d.toString('latin1')));
    socket.on('error', () => {});
  }

  static async open(port: number): Promise<SyncPeer> {
    const s = new Socket();
    await new Promise<void>((resolve, reject) => {
      s.once('error', reject);
      s.connect(port, '127.0.0.1', () => resolve());
    });
    const p = new SyncPeer(s);
    s.write(encodeCommand(['SYNC']), 'latin1');
    await until(() => p.afterRdb() !== null);
    return p;
  }

  /** The bytes after "$<len>\r\n<rdb>", or null while the RDB is incomplete. */
  afterRdb(): string | null {
    const m = /^\n*\$(\d+)\r\n/.exec(this.bytes);
    if (m === null) return null;
    const end = m[0].length + Number(m[1]);
    return this.bytes.length < end ? null : this.bytes.slice(end);
  }

  close(): void {
    this.socket.destroy();
  }
}

async function until(ready: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

const WRITES: string[][] = [
  ['PUBLISH', 'ch', 'alone'],
  ['SET', 'a', '1'],
  ['MULTI'],
  ['SET', 'b', '2'],
  ['PUBLISH', 'ch', 'in-multi'],
  ['EXEC'],
  ['MULTI'],
  ['PUBLISH', 'ch', 'one'],
  ['PUBLISH', 'ch', 'two'],
  ['EXEC'],
  ['SELECT', '3'],
  ['SPUBLISH', 'sch', 'shard'],
  ['SET', 'c', '3'],
];

interface Seen {
  /** The AOF after the writes with no replica and no backlog. */
  aofWithoutBacklog: string;
  /** What the replica received after its RDB. */
  stream: string;
  /** The AOF at the end. */
  aof: string;
}

async function observe(side: Side): Promise<Seen> {
  const c = await RawConnection.open(side.port);
  for (const argv of WRITES) await c.command(argv);
  await c.command(['SELECT', '0']);
  const aofWithoutBacklog = incrAof(side.dir);
  const peer = await SyncPeer.open(side.port);
  for (const argv of WRITES) await c.command(argv);
  await c.command(['PING']);
  await new Promise((r) => setTimeout(r, 200));
  const seen = { aofWithoutBacklog, stream: peer.afterRdb()!, aof: incrAof(side.dir) };
  peer.close();
  c.close();
  return seen;
}

describe.skipIf(!HAVE_REAL_REDIS)(HAVE_REAL_REDIS ? 'PUBLISH propagation with redis-server 7.0.15' : `PUBLISH propagation (${skipNotice()})`, () => {
  let real: Seen;
  let emu: Seen;
  const sides: Side[] = [];

  beforeAll(async () => {
    const [r, e] = await Promise.all([startReal(), startEmulator()]);
    sides.push(r, e);
    [real, emu] = await Promise.all([observe(r), observe(e)]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(sides.map((s) => s.stop()));
  });

  it('PUBLISH is neither written to the AOF nor counted in a transaction while nothing replicates', () => {
    expect(real.aofWithoutBacklog).not.toContain('PUBLISH');
    expect(emu.aofWithoutBacklog).toBe(real.aofWithoutBacklog);
  });

  it('PUBLISH and SPUBLISH reach a replica in the stream, wrapped with the writes of their transaction', () => {
    expect(real.stream).toContain('PUBLISH');
    expect(emu.stream).toBe(real.stream);
  });

  it('the AOF gets the transaction without PUBLISH, even an empty MULTI/EXEC', () => {
    expect(real.aof).not.toContain('PUBLISH');
    expect(emu.aof).toBe(real.aof);
  });
});
