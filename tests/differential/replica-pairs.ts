/**
 * A primary and its replica for the differential tests, each of them a
 * real redis-server or the emulator (`npm run server`), driven as one
 * Backend: clients c1-c9 talk to the replica, c10 and up to the primary,
 * and {primary-port} / {replica-port} in a command's arguments stand for
 * the pair's ports.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runServer } from '../../src/node/server-main.js';
import { freePort, RawConnection, startRealRedis } from '../support/real-redis.js';
import { RealBackend, type Backend } from './backends.js';

/**
 * Both sides of each pair start alike: no snapshots, a diskless sync that
 * starts at once, no pings in the stream during a script (their count would
 * depend on the wall clock, and they move the offsets), and no active expiry
 * on the primary, so a replica's logically expired keys stay until the
 * primary's DEL.
 */
const COMMON = ['--save', '', '--repl-diskless-sync-delay', '0', '--repl-ping-replica-period', '3600', '--enable-debug-command', 'yes'];

export interface Server {
  port: number;
  stop(): Promise<void>;
}

export async function startEmulator(extra: string[]): Promise<Server> {
  const dir = mkdtempSync(join(tmpdir(), 'rw-pair-emu-'));
  const port = await freePort();
  let log = '';
  const cwd = process.cwd();
  const r = await runServer(['--port', String(port), '--dir', dir, ...COMMON, ...extra], { stdout: (t) => (log += t) }).finally(() => process.chdir(cwd));
  if (typeof r === 'number') throw new Error(`npm run server did not start:\n${log}`);
  return {
    port,
    stop: async () => {
      await r.shutdown();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function startReal(extra: string[]): Promise<Server> {
  return startRealRedis([...COMMON, ...extra]);
}

export type Start = (extra: string[]) => Promise<Server>;

/** A primary and its replica, linked and in sync. */
export class Pair implements Backend {
  private constructor(
    readonly primary: Server,
    readonly replica: Server,
    private readonly toPrimary: RealBackend,
    private readonly toReplica: RealBackend,
  ) {}

  static async start(primaryKind: Start, replicaKind: Start): Promise<Pair> {
    const primary = await primaryKind([]);
    const replica = await replicaKind(['--replicaof', '127.0.0.1', String(primary.port)]);
    const pair = new Pair(primary, replica, RealBackend.over(primary), RealBackend.over(replica));
    const deadline = Date.now() + 20_000;
    for (;;) {
      const c = await RawConnection.open(replica.port);
      const info = String(await c.command(['INFO', 'replication']));
      c.close();
      if (info.includes('master_link_status:up')) break;
      if (Date.now() > deadline) throw new Error(`the replica did not sync:\n${info}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    return pair;
  }

  private side(client: number): RealBackend {
    return client >= 10 ? this.toPrimary : this.toReplica;
  }

  private args(argv: string[]): string[] {
    return argv.map((a) => a.replaceAll('{primary-port}', String(this.primary.port)).replaceAll('{replica-port}', String(this.replica.port)));
  }

  command(client: number, argv: string[]): Promise<string> {
    return this.side(client).command(client, this.args(argv));
  }
  send(client: number, argv: string[]): Promise<void> {
    return this.side(client).send(client, this.args(argv));
  }
  nextReply(client: number): Promise<string> {
    return this.side(client).nextReply(client);
  }
  drain(client: number): Promise<string> {
    return this.side(client).drain(client);
  }
  raw(client: number, bytes: string): Promise<{ bytes: string; closed: boolean }> {
    return this.side(client).raw(client, bytes);
  }
  sleep(ms: number): Promise<void> {
    return new Promise((r) => setTimeout(r, ms));
  }
  /** Closes the clients and stops both servers. */
  async close(): Promise<void> {
    await Promise.all([this.toReplica.close(), this.toPrimary.close()]);
  }
}
