import { describe, expect, it } from 'vitest';
import { createServer } from '../../../emulator/process/create-server.js';
import { ManualClock } from '../../../emulator/sim/clock.js';
import { ErrorReply, MapReply, SetReply, StatusReply, VerbatimReply, type Reply } from '../../../emulator/resp/reply.js';
import { COMMAND_SUMMARIES } from '../../../emulator/commands/summaries.js';
import { commandFacts } from '../../../emulator/server/command-table.js';
import { sha1 } from '../../../emulator/numbers/sha1.js';
import facts from '../../../emulator/server/data/commands-7.0.json' with { type: 'json' };

const START_MS = 1_767_225_600_123;

function setup(config: Record<string, string> = { 'enable-debug-command': 'yes' }) {
  const clock = new ManualClock(START_MS * 1000);
  const server = createServer({ clock, config });
  const c = server.connect();
  const propagated: string[][] = [];
  server.onPropagate((_db, argv) => propagated.push(argv));
  const run = (...argv: string[]): Reply => server.execute(c, argv);
  return { clock, server, c, run, propagated };
}

function text(r: Reply): string {
  if (r instanceof StatusReply) return r.text;
  if (r instanceof ErrorReply) return '-' + r.message;
  return String(r);
}

describe('FLUSHDB, FLUSHALL and SWAPDB', () => {
  it('FLUSHALL counts the removed keys as changes and is propagated even when nothing was removed', () => {
    // Without save rules: with them, FLUSHALL saves at once and the save zeroes the count (below).
    const { server, run, propagated } = setup({ save: '' });
    run('FLUSHALL');
    expect(server.dirty).toBe(0);
    expect(propagated).toEqual([['FLUSHALL']]);
    run('SET', 'a', '1');
    run('SELECT', '3');
    run('SET', 'b', '1');
    const before = server.dirty;
    run('FLUSHALL', 'ASYNC');
    expect(server.dirty - before).toBe(2);
  });

  it('FLUSHALL with save rules saves the empty dataset at once, which zeroes the count of changes, and is still propagated', () => {
    // flushAllDataAndResetRDB (src/db.c) calls rdbSave, which sets server.dirty to 0, when saveparams exist.
    const { server, run, propagated } = setup({ save: '3600 1' });
    run('SET', 'a', '1');
    expect(server.dirty).toBe(1);
    run('FLUSHALL');
    expect(server.dirty).toBe(0);
    expect(propagated.at(-1)).toEqual(['FLUSHALL']);
  });

  it('FLUSHDB empties only the selected database', () => {
    const { server, run, propagated } = setup();
    run('SET', 'a', '1');
    run('SELECT', '1');
    run('SET', 'b', '1');
    propagated.length = 0;
    run('FLUSHDB');
    expect(server.dbs[0]!.size).toBe(1);
    expect(server.dbs[1]!.size).toBe(0);
    expect(propagated).toEqual([['FLUSHDB']]);
  });

  it('SWAPDB exchanges contents, not the clients selecting them, and counts one change', () => {
    const { server, run } = setup();
    run('SET', 'k', 'zero');
    const before = server.dirty;
    expect(text(run('SWAPDB', '0', '1'))).toBe('OK');
    expect(server.dirty - before).toBe(1);
    expect(run('GET', 'k')).toBeNull();
    run('SELECT', '1');
    expect(run('GET', 'k')).toBe('zero');
    expect(text(run('SWAPDB', '0', '16'))).toBe('-ERR DB index is out of range');
    expect(text(run('SWAPDB', 'x', '0'))).toBe('-ERR invalid first DB index');
    expect(text(run('SWAPDB', '0', 'y'))).toBe('-ERR invalid second DB index');
  });
});

describe('TIME and LASTSAVE', () => {
  it('TIME reads the virtual clock', () => {
    const { clock, run } = setup();
    expect(run('TIME')).toEqual([String(Math.floor(START_MS / 1000)), '123000']);
    clock.advanceUs(1_900_001);
    expect(run('TIME')).toEqual([String(Math.floor(START_MS / 1000) + 2), '23001']);
  });

  it('LASTSAVE is the start time until something is saved', () => {
    const { clock, server, run } = setup();
    clock.advanceMs(5000);
    expect(run('LASTSAVE')).toBe(Math.floor(START_MS / 1000));
    server.stats.persistence.lastSaveUnixS = 42;
    expect(run('LASTSAVE')).toBe(42);
  });
});

describe('COMMAND', () => {
  it('every Redis 7.0 command and subcommand has one of our summaries', () => {
    const names: string[] = [];
    for (const f of (facts as unknown as { commands: Array<{ name: string; subcommands?: Array<{ name: string }> }> }).commands) {
      names.push(f.name, ...(f.subcommands ?? []).map((s) => s.name));
    }
    expect(names.filter((n) => !COMMAND_SUMMARIES[n])).toEqual([]);
    expect(Object.keys(COMMAND_SUMMARIES).filter((n) => !commandFacts(n))).toEqual([]);
  });

  it('COMMAND DOCS shows our summary and the documented facts', () => {
    const { run } = setup();
    const docs = run('COMMAND', 'DOCS', 'get') as MapReply;
    expect(docs.flat[0]).toBe('get');
    const get = (docs.flat[1] as MapReply).flat;
    expect(get.slice(0, 6)).toEqual(['summary', COMMAND_SUMMARIES.get, 'since', '1.0.0', 'group', 'string']);
    expect(get[6]).toBe('arguments');
  });

  it('COMMAND INFO ends with an empty set for a command without subcommands', () => {
    const { run } = setup();
    const info = (run('COMMAND', 'INFO', 'get') as Reply[])[0] as Reply[];
    expect(info.slice(0, 6)).toEqual(['get', 2, new SetReply([new StatusReply('readonly'), new StatusReply('fast')]), 1, 1, 1]);
    expect(info[9]).toEqual(new SetReply([]));
  });

  it('only implemented commands exist', () => {
    const server = createServer({ clock: new ManualClock(), handlers: { get: () => null, 'config|get': () => null } });
    const c = server.connect();
    expect(server.execute(c, ['COMMAND', 'COUNT'])).toBeInstanceOf(ErrorReply);
    expect(server.commands.count).toBe(2);
  });

  it('GETKEYS follows key specs, key finders and Redis errors', () => {
    const { run } = setup();
    expect(run('COMMAND', 'GETKEYS', 'mset', 'a', '1', 'b', '2')).toEqual(['a', 'b']);
    expect(run('COMMAND', 'GETKEYS', 'zunionstore', 'd', '2', 'a', 'b', 'WEIGHTS', '1', '2')).toEqual(['d', 'a', 'b']);
    expect(run('COMMAND', 'GETKEYS', 'sort', 'k', 'LIMIT', '0', '1', 'STORE', 'dst')).toEqual(['k', 'dst']);
    expect(text(run('COMMAND', 'GETKEYS', 'zunionstore', 'd', '0', 'a'))).toBe('-ERR Invalid arguments specified for command');
    expect(text(run('COMMAND', 'GETKEYS', 'ping', 'x'))).toBe('-ERR The command has no key arguments');
    expect(text(run('COMMAND', 'GETKEYS', 'get', 'a', 'b'))).toBe('-ERR Invalid number of arguments specified for command');
    expect(text(run('COMMAND', 'GETKEYS', 'nosuch', 'x'))).toBe('-ERR Invalid command specified');
    const withFlags = run('COMMAND', 'GETKEYSANDFLAGS', 'set', 'k', 'v', 'GET') as Reply[];
    expect(withFlags).toEqual([['k', new SetReply([new StatusReply('RW'), new StatusReply('access'), new StatusReply('update')])]]);
  });
});

describe('DEBUG', () => {
  it('SHA1 test vectors', () => {
    const hex = (d: Uint8Array) => [...d].map((b) => b.toString(16).padStart(2, '0')).join('');
    expect(hex(sha1(''))).toBe('da39a3ee5e6b4b0d3255bfef95601890afd80709');
    expect(hex(sha1('abc'))).toBe('a9993e364706816aba3e25717850c26c9cd0d89d');
    expect(hex(sha1('a'.repeat(1000)))).toBe('291e9a6c66994949b57ba5e650361e98fc36b1ba');
  });

  it('DEBUG DIGEST ignores the order of keys and set members, not of list elements', () => {
    const a = setup();
    const b = setup();
    a.run('SADD', 's', 'x', 'y', 'z');
    a.run('SET', 'k', 'v');
    b.run('SET', 'k', 'v');
    b.run('SADD', 's', 'z', 'y', 'x');
    expect(a.run('DEBUG', 'DIGEST')).toEqual(b.run('DEBUG', 'DIGEST'));
    a.run('RPUSH', 'l', '1', '2');
    b.run('RPUSH', 'l', '2', '1');
    expect(a.run('DEBUG', 'DIGEST')).not.toEqual(b.run('DEBUG', 'DIGEST'));
    expect(text(setup().run('DEBUG', 'DIGEST'))).toBe('0'.repeat(40));
  });

  it('DEBUG OBJECT describes the value the way 7.0 does', () => {
    const { run, clock } = setup();
    run('RPUSH', 'l', 'a', 'b', 'c', '1', '2', '300');
    run('SET', 'i', '123');
    clock.advanceMs(3000);
    expect(text(run('DEBUG', 'OBJECT', 'l'))).toMatch(
      /^Value at:0x7f[0-9a-f]{10} refcount:1 encoding:quicklist serializedlength:26 lru:\d+ lru_seconds_idle:3 ql_nodes:1 ql_avg_node:6\.00 ql_listpack_max:-2 ql_compressed:0 ql_uncompressed_size:23$/,
    );
    expect(text(run('DEBUG', 'OBJECT', 'i'))).toMatch(/refcount:2147483647 encoding:int serializedlength:2 /);
    expect(text(run('DEBUG', 'OBJECT', 'nokey'))).toBe('-ERR no such key');
  });

  it('DEBUG SET-ACTIVE-EXPIRE switches the active expiry cycle', () => {
    const { server, run } = setup();
    run('DEBUG', 'SET-ACTIVE-EXPIRE', '0');
    expect(server.activeExpireEnabled).toBe(false);
    run('DEBUG', 'SET-ACTIVE-EXPIRE', '1');
    expect(server.activeExpireEnabled).toBe(true);
  });

  it('DEBUG is refused unless enable-debug-command allows it', () => {
    const { run } = setup({});
    expect(text(run('DEBUG', 'LOG', 'x'))).toMatch(/^-ERR DEBUG command not allowed/);
    expect(text(setup({ 'enable-debug-command': 'yes' }).run('DEBUG', 'LOG', 'x'))).toBe('OK');
  });
});

describe('persistence on a server without a disk', () => {
  it('BGREWRITEAOF finishes at once and INFO counts the rewrite', () => {
    const { run } = setup();
    expect(text(run('BGREWRITEAOF'))).toBe('Background append only file rewriting started');
    expect(text(run('BGREWRITEAOF'))).toBe('Background append only file rewriting started');
    const info = (run('INFO', 'persistence') as VerbatimReply).text;
    expect(info).toContain('aof_rewrites:2\r\n');
    expect(info).toContain('aof_last_rewrite_time_sec:0\r\n');
    expect(info).toContain('aof_last_bgrewrite_status:ok\r\n');
    expect(info).toContain('aof_rewrite_in_progress:0\r\n');
  });
});
