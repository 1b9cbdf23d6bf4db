/**
 * Replication pairs against a pair of real servers: the same script runs on
 * a real primary with a real replica (the reference), on a real primary with
 * the emulator (`npm run server`) as its replica, and on the emulator as
 * primary with a real replica. Clients c1-c9 talk to the replica, c10 and up
 * to the primary; every reply must agree byte for byte with the reference
 * (or by the rule its step names). In a script, {primary-port} and
 * {replica-port} stand for the ports of the pair it runs on.
 *
 * The scripts wait for states, never for time: WAIT on the primary returns
 * once the replica has applied the stream up to it, and a write sent to a
 * primary handing over with FAILOVER is answered once the handover is done.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runServer } from '../../src/node/server-main.js';
import { freePort, RawConnection, startRealRedis } from '../support/real-redis.js';
import { HAVE_REAL_REDIS, skipNotice } from './availability.js';
import { RealBackend, type Backend } from './backends.js';
import { formatMismatches, runDifferential } from './runner.js';
import { parseScript } from './script.js';

/**
 * Both sides of each pair start alike: no snapshots, a diskless sync that
 * starts at once, no pings in the stream during a script (their count would
 * depend on the wall clock, and they move the offsets), and no active expiry
 * on the primary, so a replica's logically expired keys stay until the
 * primary's DEL.
 */
const COMMON = ['--save', '', '--repl-diskless-sync-delay', '0', '--repl-ping-replica-period', '3600', '--enable-debug-command', 'yes'];

interface Server {
  port: number;
  stop(): Promise<void>;
}

async function startEmulator(extra: string[]): Promise<Server> {
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

async function startReal(extra: string[]): Promise<Server> {
  return startRealRedis([...COMMON, ...extra]);
}

type Start = (extra: string[]) => Promise<Server>;

/** A primary and its replica, linked and in sync. */
class Pair implements Backend {
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
  async close(): Promise<void> {
    await Promise.all([this.toReplica.close(), this.toPrimary.close()]);
  }
}

const root = join(import.meta.dirname, 'pairs');
const files = readdirSync(root).filter((f) => f.endsWith('.redis')).sort();

describe.skipIf(!HAVE_REAL_REDIS)(HAVE_REAL_REDIS ? 'replication pairs' : `replication pairs (${skipNotice()})`, () => {
  for (const name of files) {
    it(`${name}: the emulator as replica of a real primary, and as primary of a real replica, answer as a real pair`, async () => {
      const steps = parseScript(readFileSync(join(root, name), 'utf8'));
      const pairs = await Promise.all([Pair.start(startReal, startReal), Pair.start(startReal, startEmulator), Pair.start(startEmulator, startReal)]);
      const [real, emulatorReplica, emulatorPrimary] = pairs;
      try {
        const mismatches = await runDifferential(steps, real!, { 'emulator replica': emulatorReplica!, 'emulator primary': emulatorPrimary! });
        expect(formatMismatches(name, mismatches)).toBe('');
      } finally {
        await Promise.all(pairs.map((p) => p.close()));
      }
    }, 60_000);
  }
});
