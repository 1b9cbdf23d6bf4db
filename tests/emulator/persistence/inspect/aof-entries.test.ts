/**
 * The AOF entry reader and the manifest explanation against an
 * appendonlydir written by redis-server 7.0.15 and by the emulator: the
 * commands as Redis's loader reads them, with the bytes each spans, an
 * RDB base or preamble, timestamp annotations, and a torn or damaged end.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAVE_REAL_REDIS, skipNotice } from '../../../differential/availability.js';
import { RawConnection, startRealRedis, type RealRedis } from '../../../support/real-redis.js';
import { AofEntryReader, explainManifest, type AofEntry } from '../../../../emulator/persistence/inspect/index.js';
import { World } from '../../../../emulator/world/world.js';

if (!HAVE_REAL_REDIS) console.warn(`\n!!! inspect aof-entries: ${skipNotice()}\n`);
const describeReal = HAVE_REAL_REDIS ? describe : describe.skip;

function all(bytes: Uint8Array): AofEntry[] {
  const reader = new AofEntryReader(bytes);
  const out: AofEntry[] = [];
  for (let e = reader.next(); e !== null; e = reader.next()) out.push(e);
  return out;
}

const commands = (entries: AofEntry[]): string[][] => entries.flatMap((e) => (e.kind === 'command' ? [[...e.argv]] : []));
const text = (s: string): Uint8Array => Uint8Array.from(s, (c) => c.charCodeAt(0));

const WRITES: string[][] = [
  ['SET', 'a', '1'],
  ['SET', 'bin', 'x\x00\xff\r\n'],
  ['MULTI'],
  ['INCR', 'n'],
  ['RPUSH', 'l', 'x', 'y'],
  ['EXEC'],
  ['SELECT', '2'],
  ['HSET', 'h', 'f', 'v'],
];

/** What the loader replays for WRITES: the transaction as MULTI ... EXEC, SELECT before the first write to db 2. */
const REPLAYED: string[][] = [
  ['SELECT', '0'],
  ['SET', 'a', '1'],
  ['SET', 'bin', 'x\x00\xff\r\n'],
  ['MULTI'],
  ['INCR', 'n'],
  ['RPUSH', 'l', 'x', 'y'],
  ['EXEC'],
  ['SELECT', '2'],
  ['HSET', 'h', 'f', 'v'],
];

describeReal('AOF entries of an appendonlydir written by redis-server 7.0.15', () => {
  let real: RealRedis;
  let dir: string;

  beforeAll(async () => {
    real = await startRealRedis(['--appendonly', 'yes', '--appendfsync', 'always']);
    const c = await RawConnection.open(real.port);
    for (const cmd of WRITES) await c.command(cmd);
    c.close();
    dir = join(real.dir, 'appendonlydir');
  });

  afterAll(async () => {
    await real?.stop();
  });

  it('reads the incremental file command by command, each spanning its bytes', () => {
    const bytes = new Uint8Array(readFileSync(join(dir, 'appendonly.aof.1.incr.aof')));
    const entries = all(bytes);
    expect(commands(entries)).toEqual(REPLAYED);
    expect(entries[0]!.offset).toBe(0);
    for (let i = 1; i < entries.length; i++) expect(entries[i]!.offset).toBe(entries[i - 1]!.end);
    expect(entries[entries.length - 1]!.end).toBe(bytes.length);
  });

  it('shows the RDB base as RDB records', () => {
    const bytes = new Uint8Array(readFileSync(join(dir, 'appendonly.aof.1.base.rdb')));
    const entries = all(bytes);
    expect(entries[0]).toMatchObject({ kind: 'rdb', record: { kind: 'header', version: 10 } });
    expect(entries.find((e) => e.kind === 'rdb' && e.record.kind === 'aux' && e.record.key === 'aof-base')).toMatchObject({ record: { value: '1' } });
    expect(entries[entries.length - 1]).toMatchObject({ kind: 'rdb', record: { kind: 'eof' }, end: bytes.length });
  });

  it('marks a command the file ends inside as torn, after the whole ones', () => {
    const bytes = new Uint8Array(readFileSync(join(dir, 'appendonly.aof.1.incr.aof')));
    const whole = all(bytes);
    const lastStart = whole[whole.length - 1]!.offset;
    const entries = all(bytes.subarray(0, lastStart + 10));
    expect(commands(entries)).toEqual(REPLAYED.slice(0, -1));
    expect(entries[entries.length - 1]).toEqual({ kind: 'torn', offset: lastStart, end: lastStart + 10 });
  });

  it('stops at bytes that cannot be a command', () => {
    const entries = all(text('*1\r\n$4\r\nPING\r\ngarbage\r\n'));
    expect(entries).toEqual([
      { kind: 'command', offset: 0, end: 14, argv: ['PING'] },
      { kind: 'bad-format', offset: 14, end: 23 },
    ]);
  });

  it('explains the manifest line by line, in the order Redis loads the files', () => {
    const manifest = readFileSync(join(dir, 'appendonly.aof.manifest'), 'latin1');
    const ex = explainManifest(manifest);
    expect(ex.error).toBeNull();
    expect(ex.lines.map((l) => [l.role, l.file?.name, l.file?.seq])).toEqual([
      ['base', 'appendonly.aof.1.base.rdb', 1],
      ['incr', 'appendonly.aof.1.incr.aof', 1],
    ]);
    expect(ex.lines[0]!.text).toBe('the base: the dataset as of the last rewrite, in RDB format (a snapshot); Redis loads it first');
    expect(ex.loadOrder).toEqual(['appendonly.aof.1.base.rdb', 'appendonly.aof.1.incr.aof']);
    expect(readdirSync(dir).sort()).toEqual(['appendonly.aof.1.base.rdb', 'appendonly.aof.1.incr.aof', 'appendonly.aof.manifest']);
  });
});

describeReal('AOF entries with timestamp annotations from redis-server 7.0.15', () => {
  it('shows #TS lines as annotations between the commands', async () => {
    const real = await startRealRedis(['--appendonly', 'yes', '--appendfsync', 'always', '--aof-timestamp-enabled', 'yes']);
    try {
      const c = await RawConnection.open(real.port);
      await c.command(['SET', 'a', '1']);
      c.close();
      const entries = all(new Uint8Array(readFileSync(join(real.dir, 'appendonlydir', 'appendonly.aof.1.incr.aof'))));
      expect(entries[0]).toMatchObject({ kind: 'annotation', offset: 0 });
      if (entries[0]!.kind === 'annotation') expect(entries[0]!.text).toMatch(/^#TS:\d+$/);
      expect(commands(entries)).toEqual([
        ['SELECT', '0'],
        ['SET', 'a', '1'],
      ]);
    } finally {
      await real.stop();
    }
  });
});

describe('AOF entries of files written by the emulator', () => {
  it('reads an old-style AOF with an RDB preamble: its records, then the commands after it', () => {
    // An RDB of no keys (the emulator's own SAVE output would do too), then two commands.
    const world = new World({ seed: 5 });
    world.addHost('A');
    world.startRedis('A', { config: { save: '' } });
    const r = world.connect({ from: 'A', to: 'A:6379' });
    return world.settle(r.call('SAVE')).then(() => {
      const rdb = world.host('A').disk.readFile('/var/lib/redis/dump.rdb');
      const tail = text('*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n');
      const bytes = new Uint8Array(rdb.length + tail.length);
      bytes.set(rdb);
      bytes.set(tail, rdb.length);
      const entries = all(bytes);
      const eof = entries.findIndex((e) => e.kind === 'rdb' && e.record.kind === 'eof');
      expect(entries[eof]!.end).toBe(rdb.length);
      expect(commands(entries.slice(eof + 1))).toEqual([
        ['SELECT', '0'],
        ['SET', 'k', 'v'],
      ]);
      // Resuming inside the preamble carries on through it into the commands.
      const reader = new AofEntryReader(bytes);
      reader.next();
      const again = new AofEntryReader(bytes, reader.state());
      const rest: AofEntry[] = [];
      for (let e = again.next(); e !== null; e = again.next()) rest.push(e);
      expect(commands(rest)).toEqual([
        ['SELECT', '0'],
        ['SET', 'k', 'v'],
      ]);
      expect(rest.length).toBe(entries.length - 1);
    });
  });

  it('reads the incremental file the emulator writes, which a real server would load the same', async () => {
    const world = new World({ seed: 5 });
    world.addHost('A');
    world.startRedis('A', { config: { appendonly: 'yes', appendfsync: 'always' } });
    const r = world.connect({ from: 'A', to: 'A:6379' });
    for (const cmd of WRITES) await world.settle(r.call(cmd[0]!, ...cmd.slice(1)));
    const bytes = world.host('A').disk.readFile('/var/lib/redis/appendonlydir/appendonly.aof.1.incr.aof');
    // The client library sends strings as UTF-8: U+00FF is the two bytes c3 bf.
    expect(commands(all(bytes))).toEqual(REPLAYED.map((argv) => argv.map((a) => a.replace('\xff', '\xc3\xbf'))));
  });

  it('flags a manifest Redis would refuse, at the line it would name', () => {
    const ex = explainManifest('file a.1.base.rdb seq 1 type b\nfile a.2.incr.aof seq 2 type i\nfile a.1.incr.aof seq 1 type i\n# note\nbogus\n');
    expect(ex.lines.map((l) => l.role)).toEqual(['base', 'incr', 'incr', 'comment', 'invalid']);
    expect(ex.error).toEqual({ reason: 'Found a non-monotonic sequence number', line: 3 });
    expect(ex.loadOrder).toEqual([]);
    expect(ex.lines[4]!.text).toBe('not a valid line: Invalid AOF manifest file format');
  });
});
