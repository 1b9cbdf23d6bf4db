/**
 * The replica's side of replication with real redis-server 7.0.15 on the
 * other end, over TCP: `npm run server` started as a replica of a real
 * primary does the full sync, follows 10,000 mixed writes to the same
 * DEBUG DIGEST, continues with a partial resync after its link is cut,
 * answers WAIT, and passes the stream on verbatim to a real replica of
 * its own (real -> emulator -> real). Its INFO replication is compared
 * field by field with a real replica of the same primary. Skipped, with a
 * notice, when no real server is installed.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runServer, type RunningServer } from '../../src/node/server-main.js';
import { encodeCommand } from '../../emulator/resp/encode.js';
import { ReplyParser } from '../../emulator/resp/reply-parser.js';
import { Random } from '../../emulator/sim/random.js';
import { freePort, RawConnection, startRealRedis, type RealRedis } from '../support/real-redis.js';
import { HAVE_REAL_REDIS, skipNotice } from './availability.js';

if (!HAVE_REAL_REDIS) console.warn(`\n!!! replica interop: ${skipNotice()}\n`);

/** A diskless sync that starts at once; the pings of a long test do not matter. */
const COMMON = ['--save', '', '--repl-diskless-sync-delay', '0'];

interface Emulator {
  port: number;
  log(): string;
  stop(): Promise<void>;
}

async function startEmulator(extra: string[]): Promise<Emulator> {
  const dir = mkdtempSync(join(tmpdir(), 'rw-replica-emu-'));
  const port = await freePort();
  let log = '';
  const cwd = process.cwd();
  const r = await runServer(['--port', String(port), '--dir', dir, ...COMMON, ...extra], { stdout: (t) => (log += t) }).finally(() =>
    process.chdir(cwd),
  );
  if (typeof r === 'number') throw new Error(`npm run server did not start:\n${log}`);
  const running: RunningServer = r;
  return {
    port,
    log: () => log,
    stop: async () => {
      await running.shutdown();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function command(port: number, argv: string[]): Promise<unknown> {
  const c = await RawConnection.open(port);
  try {
    return await c.command(argv);
  } finally {
    c.close();
  }
}

async function info(port: number, section = 'replication'): Promise<Map<string, string>> {
  const text = String(await command(port, ['INFO', section]));
  const out = new Map<string, string>();
  for (const line of text.split('\r\n')) {
    const i = line.indexOf(':');
    if (i > 0) out.set(line.slice(0, i), line.slice(i + 1));
  }
  return out;
}

async function until(check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Sends commands pipelined on one connection and waits for all their replies. */
async function pipeline(port: number, commands: string[][]): Promise<void> {
  const s = new Socket();
  await new Promise<void>((resolve, reject) => {
    s.once('error', reject);
    s.connect(port, '127.0.0.1', () => resolve());
  });
  const parser = new ReplyParser();
  let seen = 0;
  const done = new Promise<void>((resolve) => {
    s.on('data', (d) => {
      parser.feed(d.toString('latin1'));
      while (parser.next() !== undefined) seen++;
      if (seen === commands.length) resolve();
    });
  });
  s.write(commands.map((a) => encodeCommand(a)).join(''), 'latin1');
  await done;
  s.destroy();
}

/** Mixed writes over a small key space, so types and databases meet: the same for any seed. */
function mixedWrites(n: number, seed: number): string[][] {
  const r = new Random(seed);
  const out: string[][] = [];
  for (let i = 0; i < n; i++) {
    const k = `k${r.below(200)}`;
    const v = `v${r.below(1_000_000)}`;
    switch (r.below(14)) {
      case 0: out.push(['SET', `s:${k}`, v]); break;
      case 1: out.push(['INCRBY', `n:${k}`, String(r.below(100))]); break;
      case 2: out.push(['RPUSH', `l:${k}`, v, `${v}b`]); break;
      case 3: out.push(['LPOP', `l:${k}`]); break;
      case 4: out.push(['HSET', `h:${k}`, `f${r.below(20)}`, v]); break;
      case 5: out.push(['SADD', `t:${k}`, v]); break;
      case 6: out.push(['ZADD', `z:${k}`, String(r.below(1000)), v]); break;
      case 7: out.push(['EXPIRE', `s:${k}`, '100000']); break;
      case 8: out.push(['DEL', `s:${k}`, `n:${k}`]); break;
      case 9: out.push(['APPEND', `s:${k}`, v]); break;
      case 10: out.push(['SELECT', String(r.below(3))]); break;
      case 11: out.push(['MULTI']); out.push(['INCR', `n:${k}`]); out.push(['SET', `s:${k}`, v]); out.push(['EXEC']); break;
      case 12: out.push(['SETEX', `x:${k}`, '100000', v]); break;
      default: out.push(['SPOP', `t:${k}`]);
    }
  }
  return out;
}

describe.skipIf(!HAVE_REAL_REDIS)('the emulator as a replica of redis-server 7.0.15', () => {
  let primary: RealRedis;
  let emulator: Emulator;
  let realReplica: RealRedis;
  let chained: RealRedis;

  beforeAll(async () => {
    primary = await startRealRedis(COMMON);
    emulator = await startEmulator(['--enable-debug-command', 'yes', '--replicaof', '127.0.0.1', String(primary.port)]);
    realReplica = await startRealRedis([...COMMON, '--replicaof', '127.0.0.1', String(primary.port)]);
    chained = await startRealRedis([...COMMON, '--replicaof', '127.0.0.1', String(emulator.port)]);
  }, 30_000);

  afterAll(async () => {
    await Promise.all([chained?.stop(), realReplica?.stop(), emulator?.stop(), primary?.stop()]);
  });

  const synced = async (port: number): Promise<boolean> => {
    const [p, r] = await Promise.all([info(primary.port), info(port)]);
    return r.get('master_link_status') === 'up' && r.get('slave_repl_offset') === p.get('master_repl_offset');
  };

  it('does the full sync, then follows 10,000 mixed writes to the same DEBUG DIGEST, and passes them on verbatim to a real replica', async () => {
    await until(() => synced(emulator.port));
    await pipeline(primary.port, mixedWrites(10_000, 42));
    await until(async () => (await synced(emulator.port)) && (await synced(chained.port)) && (await synced(realReplica.port)));
    const digest = await command(primary.port, ['DEBUG', 'DIGEST']);
    expect(await command(emulator.port, ['DEBUG', 'DIGEST'])).toEqual(digest);
    expect(await command(chained.port, ['DEBUG', 'DIGEST'])).toEqual(digest);
    const [p, c] = await Promise.all([info(primary.port), info(chained.port)]);
    expect(c.get('master_replid')).toBe(p.get('master_replid'));
  }, 60_000);

  it('continues with a partial resync after its link is cut, from either side', async () => {
    await until(() => synced(emulator.port));
    const before = Number((await info(primary.port)).get('sync_partial_ok') ?? 0);
    expect(await command(emulator.port, ['CLIENT', 'KILL', 'TYPE', 'master'])).toBe(1);
    await pipeline(primary.port, mixedWrites(500, 7));
    await until(() => synced(emulator.port));
    expect(await command(primary.port, ['CLIENT', 'KILL', 'TYPE', 'replica'])).toBe(2);
    await pipeline(primary.port, mixedWrites(500, 8));
    await until(() => synced(emulator.port));
    const stats = String(await command(primary.port, ['INFO', 'stats']));
    expect(Number(/sync_partial_ok:(\d+)/.exec(stats)![1])).toBeGreaterThanOrEqual(before + 2);
    expect(emulator.log()).toContain('Successful partial resynchronization with master.');
    expect(await command(emulator.port, ['DEBUG', 'DIGEST'])).toEqual(await command(primary.port, ['DEBUG', 'DIGEST']));
  }, 60_000);

  it('acknowledges, so WAIT on the real primary counts it', async () => {
    await until(async () => (await synced(emulator.port)) && (await synced(realReplica.port)));
    const c = await RawConnection.open(primary.port);
    try {
      expect(await c.command(['SET', 'waited', '1'])).toEqual({ text: 'OK' });
      expect(await c.command(['WAIT', '2', '2000'])).toBe(2);
    } finally {
      c.close();
    }
  });

  it('reports INFO replication with the fields and values of a real replica of the same primary', async () => {
    await until(async () => (await synced(emulator.port)) && (await synced(realReplica.port)));
    const [emu, real] = await Promise.all([info(emulator.port), info(realReplica.port)]);
    const fields = [...real.keys()].filter((k) => k !== 'slave0');
    expect([...emu.keys()].filter((k) => k !== 'slave0')).toEqual(fields);
    const alike = (k: string): string => {
      const v = real.get(k)!;
      if (k === 'master_port') return String(primary.port);
      // The emulator has the chained replica, the real one none.
      if (k === 'connected_slaves') return '1';
      if (k === 'master_last_io_seconds_ago') return Number(v) <= 1 ? '<=1' : v;
      return v;
    };
    for (const k of fields) {
      const e = emu.get(k)!;
      expect(k === 'master_last_io_seconds_ago' && Number(e) <= 1 ? '<=1' : e, k).toBe(alike(k));
    }
    // The chained real replica is listed by the emulator as a real primary lists its replicas.
    expect(emu.get('slave0')).toMatch(/^ip=127\.0\.0\.1,port=\d+,state=online,offset=\d+,lag=\d+$/);
  });
});

/** The text of each log line, with what differs between two runs replaced. */
function normalized(log: string): string[] {
  return log
    .split('\n')
    .map((l) => /^\d+:[CMS] .{24} [.*#-] (.*)$/.exec(l)?.[1])
    .filter((l): l is string => l !== undefined)
    // The child's copy-on-write report depends on the real machine's pages.
    .filter((l) => !l.startsWith('Fork CoW for '))
    .map((l) =>
      l
        .replace(/[0-9a-f]{40}/g, '<id>')
        .replace(/'id=\d+ addr=.*'\)$/, "'<client>')")
        .replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<port>')
        .replace(/created [\d.]+ Mb/, 'created <n> Mb')
        // The real primary stamps its RDB with the wall clock: the age crosses a second boundary or not.
        .replace(/^RDB age \d+ seconds$/, 'RDB age <n> seconds')
        .replace(/Sending \d+ bytes/, 'Sending <n> bytes')
        .replace(/offset: \d+/, 'offset: <n>')
        .replace(/by pid \d+/, 'by pid <pid>')
        .replace(/-bg-\d+\.aof/, '-bg-<pid>.aof'),
    );
}

describe.skipIf(!HAVE_REAL_REDIS)('a replica\'s log beside a real replica\'s', () => {
  it.each([
    { primaryArgs: [] as string[], replicaArgs: [] as string[], name: 'diskless primary, load from disk' },
    { primaryArgs: ['--repl-diskless-sync', 'no'], replicaArgs: ['--repl-diskless-load', 'swapdb'], name: 'disk primary, swapdb load' },
    { primaryArgs: [] as string[], replicaArgs: ['--appendonly', 'yes'], name: 'a replica with an append-only file' },
  ])('REPLICAOF, the full sync, a partial resync and REPLICAOF NO ONE log the same lines ($name)', async ({ primaryArgs, replicaArgs }) => {
    const primary = await startRealRedis([...COMMON, ...primaryArgs]);
    const real = await startRealRedis([...COMMON, ...replicaArgs]);
    const emu = await startEmulator(replicaArgs);
    try {
      await command(primary.port, ['SET', 'k', 'v']);
      const realLog = () => readFileSync(join(real.dir, 'redis.log'), 'latin1');
      const sides = [
        { port: real.port, log: realLog },
        { port: emu.port, log: () => emu.log() },
      ];
      const starts = sides.map((s) => s.log().length);
      for (const s of sides) await command(s.port, ['REPLICAOF', '127.0.0.1', String(primary.port)]);
      await until(async () => (await info(real.port)).get('master_link_status') === 'up' && (await info(emu.port)).get('master_link_status') === 'up');
      // A replica with an AOF rewrites it after the sync; let both finish that before the link is cut, so the
      // two logs do not differ only by which of the two came first on a busy machine.
      const rewriting = async (port: number) => {
        const p = await info(port, 'persistence');
        return p.get('aof_rewrite_in_progress') !== '0' || p.get('aof_rewrite_scheduled') !== '0';
      };
      await until(async () => !(await rewriting(real.port)) && !(await rewriting(emu.port)));
      for (const s of sides) await command(s.port, ['CLIENT', 'KILL', 'TYPE', 'master']);
      await until(async () => (await info(real.port)).get('master_link_status') === 'up' && (await info(emu.port)).get('master_link_status') === 'up');
      for (const s of sides) await command(s.port, ['REPLICAOF', 'NO', 'ONE']);
      const [r, e] = sides.map((s, i) => normalized(s.log().slice(starts[i])));
      expect(e).toEqual(r);
      expect(r).toContain('Successful partial resynchronization with master.');
    } finally {
      await Promise.all([emu.stop(), real.stop(), primary.stop()]);
    }
  }, 30_000);
});

describe.skipIf(!HAVE_REAL_REDIS)('FAILOVER between the emulator and redis-server 7.0.15', () => {
  const role = async (port: number): Promise<string> => String((await info(port)).get('role'));

  it('a real primary hands over to the emulator, and the emulator hands back', async () => {
    const real = await startRealRedis(COMMON);
    const emu = await startEmulator(['--replicaof', '127.0.0.1', String(real.port)]);
    try {
      await until(async () => (await info(emu.port)).get('master_link_status') === 'up');
      await command(real.port, ['SET', 'before', '1']);
      expect(await command(real.port, ['FAILOVER'])).toEqual({ text: 'OK' });
      await until(async () => (await role(emu.port)) === 'master' && (await info(real.port)).get('master_link_status') === 'up');
      expect(emu.log()).toMatch(/Failover request received for replid [0-9a-f]{40}\./);
      expect(await command(emu.port, ['SET', 'after', '2'])).toEqual({ text: 'OK' });
      await until(async () => (await command(real.port, ['GET', 'after'])) === '2');
      const realLog = readFileSync(join(real.dir, 'redis.log'), 'latin1');
      expect(realLog).toContain('Successful partial resynchronization with master.');
      expect(await command(emu.port, ['FAILOVER'])).toEqual({ text: 'OK' });
      await until(async () => (await role(real.port)) === 'master' && (await info(emu.port)).get('master_link_status') === 'up');
      expect(emu.log()).toMatch(/Failover target 127\.0\.0\.1:\d+ is synced, failing over\./);
      expect(await command(real.port, ['GET', 'after'])).toBe('2');
    } finally {
      await Promise.all([emu.stop(), real.stop()]);
    }
  }, 30_000);
});
