/**
 * Sentinel over TCP, with real and emulated programs on either end: three
 * sentinels watch a primary with two replicas; the primary is SIGKILLed,
 * the sentinels fail over, one replica is promoted and the other follows
 * it. Real redis-sentinel 7.0.15 watching `npm run server` processes, and
 * the emulator's sentinels (`npm run server -- sentinel.conf --sentinel`)
 * watching real redis-servers, are each compared with real sentinels over
 * real servers: the leader's events on its pub/sub (+sdown ...
 * +switch-master) must come in the same order. Event names are compared,
 * never timings. Skipped, with a notice, when redis-server or
 * redis-sentinel is not installed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeCommand } from '../../emulator/resp/encode.js';
import { ReplyParser } from '../../emulator/resp/reply-parser.js';
import { StatusReply } from '../../emulator/resp/reply.js';
import { freePort, RawConnection, REDIS_SERVER_BIN } from '../support/real-redis.js';
import { sentinelTestsRun, spawnSentinel } from './availability.js';
import { waitFor } from '../support/wait-for.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const RUN = sentinelTestsRun('sentinel interop');

/**
 * A diskless sync that starts at once, so the replicas are online before
 * the sentinels first ask the primary for its INFO.
 */
const SERVER_ARGS = ['--save', '', '--appendonly', 'no', '--repl-diskless-sync-delay', '0'];

/**
 * The events of a failover that every run has, in the order sentinel.c
 * raises them. Elections that split their votes and are retried add
 * +new-epoch / +vote-for-leader lines whose number depends on timing, so
 * those are not part of the comparison.
 */
const FAILOVER_EVENTS = new Set([
  '+sdown', '+odown', '+try-failover', '+elected-leader', '+failover-state-select-slave', '+selected-slave',
  '+failover-state-send-slaveof-noone', '+failover-state-wait-promotion', '+promoted-slave',
  '+failover-state-reconf-slaves', '+slave-reconf-sent', '+slave-reconf-inprog', '+slave-reconf-done',
  '+failover-end', '+switch-master',
]);

interface Proc {
  port: number;
  child: ChildProcess;
}

const started: ChildProcess[] = [];
const dirs: string[] = [];

function tempDir(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}

/** A reply with status lines (+PONG) read as their text. */
async function command(port: number, argv: string[]): Promise<unknown> {
  const c = await RawConnection.open(port);
  try {
    const r = await c.command(argv);
    return r instanceof StatusReply ? r.text : r;
  } finally {
    c.close();
  }
}

/** Starts one server, the emulator's (`npm run server`) or the real one, and waits for its PONG. */
async function startServer(kind: 'emulator' | 'real', dir: string, extra: string[]): Promise<Proc> {
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, ...SERVER_ARGS, ...extra];
  const child =
    kind === 'emulator'
      ? spawn(process.execPath, ['scripts/server.mjs', ...args], { cwd: ROOT, stdio: 'ignore' })
      : spawn(REDIS_SERVER_BIN, [...args, '--logfile', join(dir, `${port}.log`)], { stdio: 'ignore' });
  started.push(child);
  await waitFor(`${kind} server on ${port} answers PING`, async () =>
    (await command(port, ['PING'])) === 'PONG' ? true : undefined,
  );
  return { port, child };
}

async function startSentinel(kind: 'emulator' | 'real', dir: string, primaryPort: number): Promise<Proc> {
  const port = await freePort();
  const conf = join(dir, `sentinel-${port}.conf`);
  writeFileSync(
    conf,
    [
      `port ${port}`,
      'bind 127.0.0.1',
      `dir ${dir}`,
      `logfile ${join(dir, `sentinel-${port}.log`)}`,
      `sentinel monitor mymaster 127.0.0.1 ${primaryPort} 2`,
      'sentinel down-after-milliseconds mymaster 1000',
      'sentinel failover-timeout mymaster 3000',
      '',
    ].join('\n'),
  );
  const child = spawnSentinel(kind, conf);
  started.push(child);
  await waitFor(`sentinel on ${port} answers PING`, async () => ((await command(port, ['PING'])) === 'PONG' ? true : undefined));
  return { port, child };
}

/** Everything a sentinel publishes, as [channel, message] pairs in arrival order. */
class EventLog {
  readonly events: Array<[string, string]> = [];
  private constructor(private readonly socket: Socket) {}

  static async open(port: number): Promise<EventLog> {
    const s = new Socket();
    await new Promise<void>((resolve, reject) => {
      s.once('error', reject);
      s.connect(port, '127.0.0.1', () => resolve());
    });
    s.on('error', () => {});
    const log = new EventLog(s);
    const parser = new ReplyParser();
    let subscribed!: () => void;
    const ready = new Promise<void>((r) => (subscribed = r));
    s.on('data', (d) => {
      parser.feed(d.toString('latin1'));
      for (let r = parser.next(); r !== undefined; r = parser.next()) {
        if (!Array.isArray(r)) continue;
        if (r[0] === 'psubscribe') subscribed();
        if (r[0] === 'pmessage') log.events.push([String(r[2]), String(r[3])]);
      }
    });
    s.write(encodeCommand(['PSUBSCRIBE', '*']), 'latin1');
    await ready;
    return log;
  }

  names(): string[] {
    return this.events.map(([channel]) => channel);
  }

  close(): void {
    this.socket.destroy();
  }
}

/** SENTINEL MASTER / REPLICAS replies (flat field-value arrays) as maps. */
function fields(reply: unknown): Map<string, string> {
  const out = new Map<string, string>();
  const a = reply as unknown[];
  for (let i = 0; i + 1 < a.length; i += 2) out.set(String(a[i]), String(a[i + 1]));
  return out;
}

/**
 * The leader's failover as a list of event names: the first +sdown and
 * +odown of the primary, then everything from its last +try-failover (an
 * earlier election it lost is timing) up to +switch-master. A +sdown or
 * +odown during the failover is timing too: the primary stays down, and its
 * objective state is recounted each time the other sentinels' answers to
 * is-master-down-by-addr come back, so an answer older than five ask
 * periods on a loaded machine is forgotten, ODOWN drops and the next answer
 * sets it again (sentinelAskMasterStateToOtherSentinels and
 * sentinelCheckObjectivelyDown, sentinel.c).
 */
function failoverSequence(names: string[]): string[] {
  const end = names.indexOf('+switch-master');
  const upToSwitch = names.slice(0, end + 1).filter((n) => FAILOVER_EVENTS.has(n));
  const lastTry = upToSwitch.lastIndexOf('+try-failover');
  const before = upToSwitch.slice(0, lastTry).filter((n) => n === '+sdown' || n === '+odown');
  const during = upToSwitch.slice(lastTry).filter((n) => n !== '+sdown' && n !== '+odown');
  return [...new Set(before), ...during];
}

interface FailoverRun {
  sequence: string[];
  promotedPort: number;
  roles: { promoted: unknown[]; other: unknown[] };
  otherPort: number;
}

/**
 * One primary, two replicas, three sentinels, servers and sentinels each
 * real or the emulator's; kill the primary; wait for the failover to settle.
 */
async function failover(kind: 'emulator' | 'real', sentinelKind: 'emulator' | 'real' = 'real'): Promise<FailoverRun> {
  const dir = tempDir(`rw-sentinel-${kind}-${sentinelKind}-`);
  const primary = await startServer(kind, dir, []);
  const replicas = await Promise.all([0, 1].map(() => startServer(kind, dir, ['--replicaof', '127.0.0.1', String(primary.port)])));
  await Promise.all(
    replicas.map((r) =>
      waitFor(`${kind} replica ${r.port} in sync`, async () => {
        const info = String(await command(r.port, ['INFO', 'replication']));
        return info.includes('master_link_status:up') ? true : undefined;
      }),
    ),
  );
  const sentinels: Proc[] = [];
  for (let i = 0; i < 3; i++) sentinels.push(await startSentinel(sentinelKind, dir, primary.port));
  const logs = await Promise.all(sentinels.map((s) => EventLog.open(s.port)));
  try {
    // Every sentinel must know both replicas (from the primary's INFO, with
    // their own INFO read) and the two other sentinels (from the hello
    // messages on the servers' __sentinel__:hello) before the primary dies.
    for (const s of sentinels) {
      await waitFor(`sentinel ${s.port} sees 2 replicas and 2 sentinels`, async () => {
        const m = fields(await command(s.port, ['SENTINEL', 'MASTER', 'mymaster']));
        if (m.get('num-slaves') !== '2' || m.get('num-other-sentinels') !== '2') return undefined;
        const rs = (await command(s.port, ['SENTINEL', 'REPLICAS', 'mymaster'])) as unknown[];
        const ok = rs.map(fields).every((r) => r.get('flags') === 'slave' && r.get('master-link-status') === 'ok');
        return ok ? true : undefined;
      });
    }
    primary.child.kill('SIGKILL');
    const addr = await waitFor(`${kind}: the sentinels switch to a new primary`, async () => {
      const all = await Promise.all(
        sentinels.map(async (s) => (await command(s.port, ['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', 'mymaster'])) as string[]),
      );
      const ports = new Set(all.map((a) => a[1]));
      return ports.size === 1 && !ports.has(String(primary.port)) ? Number(all[0]![1]) : undefined;
    });
    const other = replicas.find((r) => r.port !== addr)!;
    // The other replica follows the promoted one and finishes its sync.
    const roles = await waitFor(`${kind}: replica ${other.port} follows ${addr}`, async () => {
      const promoted = (await command(addr, ['ROLE'])) as unknown[];
      const follower = (await command(other.port, ['ROLE'])) as unknown[];
      const linked = follower[0] === 'slave' && follower[2] === addr && follower[3] === 'connected';
      return promoted[0] === 'master' && linked ? { promoted, other: follower } : undefined;
    });
    // The leader of the failover that made the switch: elected before it saw the switch. (Under load a
    // sentinel can first learn the switch from the leader's hello and be elected only in a later epoch.)
    const leader = await waitFor(`${kind}: the leader's failover ended`, async () =>
      logs.find((l) => {
        const names = l.names();
        const elected = names.indexOf('+elected-leader');
        return elected !== -1 && names.indexOf('+switch-master') > elected;
      }),
    );
    return { sequence: failoverSequence(leader.names()), promotedPort: addr, roles, otherPort: other.port };
  } finally {
    for (const l of logs) l.close();
  }
}

/** Real sentinels over real servers: the sequence both directions are held to, run once for the file. */
let reference: Promise<FailoverRun> | null = null;
function realFailover(): Promise<FailoverRun> {
  reference ??= failover('real', 'real');
  return reference;
}

const REAL_SEQUENCE = [
  '+sdown', '+odown', '+try-failover', '+elected-leader', '+failover-state-select-slave', '+selected-slave',
  '+failover-state-send-slaveof-noone', '+failover-state-wait-promotion', '+promoted-slave',
  '+failover-state-reconf-slaves', '+slave-reconf-sent', '+slave-reconf-inprog', '+slave-reconf-done',
  '+failover-end', '+switch-master',
];

describe.skipIf(!RUN)('Sentinel over TCP, real and emulated on either end', () => {
  afterAll(async () => {
    for (const child of started) {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
    }
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('real sentinels fail over emulator servers with the same events as over real servers', async () => {
    // Both runs at once: the sentinels' periods are wall time, and waiting
    // for them twice in a row would double the cost of the test.
    const [emulator, real] = await Promise.all([failover('emulator', 'real'), realFailover()]);
    expect(real.sequence).toEqual(REAL_SEQUENCE);
    expect(emulator.sequence).toEqual(real.sequence);
    expect(emulator.roles.promoted[0]).toBe('master');
    expect(emulator.roles.other.slice(0, 4)).toEqual(['slave', '127.0.0.1', emulator.promotedPort, 'connected']);
  }, 120_000);

  it('emulator sentinels fail over real servers with the same events as real sentinels', async () => {
    const [emulated, real] = await Promise.all([failover('real', 'emulator'), realFailover()]);
    expect(real.sequence).toEqual(REAL_SEQUENCE);
    expect(emulated.sequence).toEqual(real.sequence);
    // The real servers were reconfigured by the emulator's sentinels: one promoted, the other following it.
    expect(emulated.roles.promoted[0]).toBe('master');
    expect(emulated.roles.other.slice(0, 4)).toEqual(['slave', '127.0.0.1', emulated.promotedPort, 'connected']);
  }, 120_000);
});
