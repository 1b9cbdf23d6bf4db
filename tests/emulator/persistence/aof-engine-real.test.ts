/**
 * The AOF engine against redis-server 7.0.15: the same session (writes in
 * several databases, a transaction, BGREWRITEAOF, switching the AOF off,
 * rewriting while off, switching it on again) is run on a real server
 * started with --appendonly yes and on the emulator, and after each step
 * the appendonlydir must hold the same file names, the same manifest text
 * and incr files with the same bytes; bases hold the same dataset (a pure
 * AOF base, byte for byte). The emulator's log lines must appear in the
 * real log in the same order. The real redis-check-aof must accept the
 * emulator's directory, and the emulator must load the real one.
 * Skipped, with a notice, without redis-server.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HAVE_REAL_REDIS, skipNotice } from '../../differential/availability.js';
import { RawConnection, startRealRedis, type RealRedis } from '../../support/real-redis.js';
import { HAVE_REAL_CHECK_TOOLS, runReal, type CaseFiles } from '../../support/real-check-tools.js';
import { World } from '../../../emulator/world/world.js';
import type { Redis } from '../../../emulator/client-library/redis.js';
import { readRdb } from '../../../emulator/persistence/rdb/file-reader.js';
import { RdbError } from '../../../emulator/persistence/rdb/errors.js';

if (!HAVE_REAL_REDIS) console.warn(`\n!!! AOF engine vs real: ${skipNotice()}\n`);
const itReal = HAVE_REAL_REDIS ? it : it.skip;
const itTools = HAVE_REAL_REDIS && HAVE_REAL_CHECK_TOOLS ? it : it.skip;

const DIR = '/var/lib/redis/appendonlydir';

/** A step of a session: a command, or waiting for the background rewrite to finish, or a look at the directory. */
type Step = string[] | 'wait' | 'snapshot';

/** File name -> latin1 content. */
type DirFiles = Record<string, string>;

const SESSION: Step[] = [
  'snapshot',
  ['SET', 'a', '1'],
  ['SET', 'bin', 'x\x00\xff\r\n'],
  ['SELECT', '3'],
  ['SET', 'b', '2'],
  ['MULTI'],
  ['SET', 'x', '1'],
  ['INCR', 'x'],
  ['EXEC'],
  ['RPUSH', 'l', 'a', 'b', 'c'],
  ['EXPIREAT', 'l', '4102444800'],
  ['INCRBYFLOAT', 'f', '1.5'],
  ['HSET', 'h', 'f', 'v'],
  ['SELECT', '0'],
  ['DEL', 'a'],
  ['SET', 'last', 'v'],
  'snapshot',
  ['BGREWRITEAOF'],
  'wait',
  'snapshot',
  ['SADD', 's', '3', '1', '2'],
  ['SELECT', '5'],
  ['ZADD', 'z', '1', 'm'],
  'snapshot',
  ['CONFIG', 'SET', 'appendonly', 'no'],
  ['SET', 'off', '1'],
  'snapshot',
  ['BGREWRITEAOF'],
  'wait',
  'snapshot',
  ['CONFIG', 'SET', 'appendonly', 'yes'],
  ['SET', 'during', '1'],
  'wait',
  ['SET', 'after', '1'],
  'snapshot',
];

function isDone(info: string): boolean {
  return /aof_rewrite_in_progress:0\r\n/.test(info) && /aof_rewrite_scheduled:0\r\n/.test(info);
}

interface SessionResult {
  snapshots: DirFiles[];
  replies: unknown[];
  log: string[];
  digest: string;
}

async function realSession(real: RealRedis, steps: Step[]): Promise<SessionResult> {
  const c = await RawConnection.open(real.port);
  const snapshots: DirFiles[] = [];
  const replies: unknown[] = [];
  for (const step of steps) {
    if (step === 'snapshot') {
      const dir = join(real.dir, 'appendonlydir');
      const files: DirFiles = {};
      for (const name of readdirSync(dir).sort()) files[name] = readFileSync(join(dir, name)).toString('latin1');
      snapshots.push(files);
    } else if (step === 'wait') {
      // Up to 30 s: a loaded machine can make the real rewrite slow.
      for (let i = 0; i < 1200 && !isDone((await c.command(['INFO', 'persistence'])) as string); i++) await new Promise((r) => setTimeout(r, 25));
    } else {
      replies.push(await c.commandRaw(step));
    }
  }
  const digest = (await c.commandRaw(['DEBUG', 'DIGEST'])).slice(1, -2);
  // SHUTDOWN has no reply: the server logs its lines and exits.
  void c.command(['SHUTDOWN']);
  for (let i = 0; i < 1000 && real.process.exitCode === null; i++) await new Promise((r) => setTimeout(r, 10));
  c.close();
  const log = readFileSync(join(real.dir, 'redis.log'), 'latin1')
    .split('\n')
    .map((l) => l.replace(/^\d+:[MCSX] \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d\.\d{3} [.\-*#] /, ''));
  return { snapshots, replies, log, digest };
}

function emulatedWorld(config: Record<string, string>) {
  const world = new World({ seed: 4 });
  world.addHost('A', 'core2duo');
  world.startRedis('A', { config: { save: '', 'enable-debug-command': 'yes', ...config } });
  const r = world.connect({ from: 'A', to: 'A:6379' });
  return { world, r, disk: world.host('A').disk };
}

async function emulatedSession(config: Record<string, string>, steps: Step[]): Promise<SessionResult & { world: World; r: Redis }> {
  const { world, r, disk } = emulatedWorld(config);
  await world.advanceAsync(100);
  const snapshots: DirFiles[] = [];
  const replies: unknown[] = [];
  // Arguments are byte strings, sent as bytes (a string would go as UTF-8).
  const raw = (argv: string[]): Promise<unknown> =>
    r.call(argv[0]!, ...argv.slice(1).map((a) => Uint8Array.from(Buffer.from(a, 'latin1')))).catch((e: Error) => `-${e.message}`);
  for (const step of steps) {
    if (step === 'snapshot') {
      const files: DirFiles = {};
      for (const name of disk.readdir(DIR)) files[name] = Buffer.from(disk.readFile(`${DIR}/${name}`)).toString('latin1');
      snapshots.push(files);
    } else if (step === 'wait') {
      await world.advanceAsync(1000);
    } else {
      replies.push(await world.settle(raw(step)));
    }
  }
  const digest = (await world.settle(r.call('DEBUG', 'DIGEST'))) as string;
  await world.settle(r.call('SHUTDOWN').catch(() => null));
  await world.advanceAsync(100);
  const log = world.trace.find('log', 'A').map((e) => e.text);
  return { snapshots, replies, log, digest, world, r };
}

/** The keys and values of an RDB base, by database, in a comparable form. */
function baseDataset(content: string): unknown {
  const c = readRdb(Uint8Array.from(Buffer.from(content, 'latin1')), {
    hashMaxListpackEntries: 512, hashMaxListpackValue: 64, setMaxIntsetEntries: 512,
    zsetMaxListpackEntries: 128, zsetMaxListpackValue: 64, deepSanitize: false,
    databases: 16, verifyChecksum: true, nowMs: 0, dropExpired: false, allowDuplicates: false,
  });
  if (c instanceof RdbError) throw new Error(c.message);
  const out: Record<string, Record<string, unknown>> = {};
  for (const [db, keys] of c.databases) {
    const m: Record<string, unknown> = {};
    for (const [k, v] of [...keys].sort(([a], [b]) => (a < b ? -1 : 1))) m[k] = JSON.parse(JSON.stringify(v, (_, x: unknown) => (typeof x === 'bigint' ? String(x) : x instanceof Map ? [...x] : x instanceof Set ? [...x].sort() : x)));
    out[db] = m;
  }
  return out;
}

function compareSnapshots(real: DirFiles[], emulated: DirFiles[]): void {
  expect(emulated.length).toBe(real.length);
  for (let i = 0; i < real.length; i++) {
    const r = real[i]!;
    const e = emulated[i]!;
    expect(Object.keys(e), `files at snapshot ${i}`).toEqual(Object.keys(r));
    for (const name of Object.keys(r)) {
      if (name.endsWith('.base.rdb')) expect(baseDataset(e[name]!), `${name} at snapshot ${i}`).toEqual(baseDataset(r[name]!));
      else expect(JSON.stringify(e[name]), `${name} at snapshot ${i}`).toBe(JSON.stringify(r[name]));
    }
  }
}

/** The pid in the rewrite lines differs between the two. */
function normalizePids(lines: string[]): string[] {
  return lines.map((l) => l.replace(/\b(pid |bg-|child: )\d+/g, '$1N'));
}

/** Whether `sub` appears in `all` in order (other lines may come between). */
function missingInOrder(sub: string[], all: string[]): string[] {
  let j = 0;
  for (let i = 0; i < sub.length; i++) {
    while (j < all.length && all[j] !== sub[i]) j++;
    if (j === all.length) return sub.slice(i);
    j++;
  }
  return [];
}

describe('the AOF engine vs redis-server 7.0.15', () => {
  itReal('leaves the same files, manifest and incr bytes after each step of a session, and logs the same lines', async () => {
    const real = await startRealRedis(['--appendonly', 'yes', '--appendfsync', 'always']);
    let r: SessionResult;
    try {
      r = await realSession(real, SESSION);
    } finally {
      await real.stop();
    }
    const e = await emulatedSession({ appendonly: 'yes', appendfsync: 'always' }, SESSION);
    // Status and error replies (BGREWRITEAOF, CONFIG SET) are the same text.
    for (let i = 0; i < r.replies.length; i++) {
      const raw = r.replies[i] as string;
      if (raw.startsWith('+')) expect(e.replies[i]).toBe(raw.slice(1, -2));
      else if (raw.startsWith('-')) expect(e.replies[i]).toBe(raw.slice(0, -2));
    }
    compareSnapshots(r.snapshots, e.snapshots);
    expect(e.digest).toBe(r.digest);
    const emulatedLines = normalizePids(e.log.slice(e.log.indexOf('Server initialized')));
    expect(missingInOrder(emulatedLines, normalizePids(r.log))).toEqual([]);
  }, 60_000);

  itReal('with aof-use-rdb-preamble no the rewritten base is the same bytes', async () => {
    // One key per database: the order of keys in a hash table differs between the two.
    const steps: Step[] = [
      ['RPUSH', 'l', 'a', 'b'],
      ['EXPIREAT', 'l', '4102444800'],
      ['SELECT', '1'],
      ['HSET', 'h', 'f', 'v', 'g', 'w'],
      ['SELECT', '2'],
      ['SADD', 's', '5', '-3', '10'],
      ['SELECT', '3'],
      ['ZADD', 'z', '2.5', 'b', '1', 'a'],
      ['SELECT', '4'],
      ['SET', 'n', '12345'],
      ['BGREWRITEAOF'],
      'wait',
      'snapshot',
    ];
    const real = await startRealRedis(['--appendonly', 'yes', '--aof-use-rdb-preamble', 'no']);
    let r: SessionResult;
    try {
      r = await realSession(real, steps);
    } finally {
      await real.stop();
    }
    const e = await emulatedSession({ appendonly: 'yes', 'aof-use-rdb-preamble': 'no' }, steps);
    compareSnapshots(r.snapshots, e.snapshots);
    expect(Object.keys(e.snapshots[0]!)).toContain('appendonly.aof.2.base.aof');
  }, 60_000);

  itTools('the real redis-check-aof accepts the directory the emulator wrote', async () => {
    for (const preamble of ['yes', 'no']) {
      const e = await emulatedSession({ appendonly: 'yes', 'aof-use-rdb-preamble': preamble }, SESSION);
      const files: CaseFiles = { appendonlydir: null };
      for (const [name, content] of Object.entries(e.snapshots.at(-1)!)) files[`appendonlydir/${name}`] = content;
      const run = runReal('aof', files, ['appendonlydir/appendonly.aof.manifest']);
      expect(run.code, run.stdout).toBe(0);
      expect(run.stdout.trimEnd().split('\n').at(-1)).toBe('All AOF files and manifest are valid');
    }
  }, 60_000);

  itReal('the emulator loads an appendonlydir the real server wrote', async () => {
    // appendfsync always: under everysec a busy machine's background fsync makes the real server
    // postpone its write() for up to two seconds (flushAppendOnlyFile in aof.c), so the files read
    // back could miss the last commands.
    const real = await startRealRedis(['--appendonly', 'yes', '--appendfsync', 'always']);
    let r: SessionResult;
    try {
      r = await realSession(real, SESSION.slice(0, 24));
    } finally {
      await real.stop();
    }
    const files = r.snapshots.at(-1)!;
    const world = new World({ seed: 2 });
    world.addHost('A', 'core2duo');
    const disk = world.host('A').disk;
    disk.mkdir(DIR, { recursive: true });
    for (const [name, content] of Object.entries(files)) disk.writeFile(`${DIR}/${name}`, Buffer.from(content, 'latin1'));
    world.startRedis('A', { config: { save: '', appendonly: 'yes', 'enable-debug-command': 'yes' } });
    const c = world.connect({ from: 'A', to: 'A:6379' });
    expect(await world.settle(c.call('DEBUG', 'DIGEST'))).toBe(r.digest);
    const log = world.trace.find('log', 'A').map((x) => x.text);
    // What the real 7.0.15 logs when it loads these files, its figures aside.
    expect(log.slice(log.indexOf('Server initialized') + 1, log.indexOf('Ready to accept connections')).map((l) => l.replace(/\d+\.\d+ (Mb|seconds)/, 'N $1').replace(/age \d+/, 'age N'))).toEqual([
      'Reading RDB base file on AOF loading...',
      'Loading RDB produced by version 7.0.15',
      'RDB age N seconds',
      'RDB memory usage when created N Mb',
      'RDB is base AOF',
      'Done loading RDB, keys loaded: 7, keys expired: 0.',
      'DB loaded from base file appendonly.aof.2.base.rdb: N seconds',
      'DB loaded from incr file appendonly.aof.2.incr.aof: N seconds',
      'DB loaded from append only file: N seconds',
      'Opening AOF incr file appendonly.aof.2.incr.aof on server start',
    ]);
  }, 60_000);
});
