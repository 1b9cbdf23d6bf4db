import { describe, expect, it } from 'vitest';
import { createServer } from '../../../emulator/process/create-server.js';
import { ManualClock } from '../../../emulator/sim/clock.js';
import { ErrorReply, StatusReply, type Reply } from '../../../emulator/resp/reply.js';
import { lastSavedRdb } from '../../../emulator/persistence/saved-rdb.js';

const START_MS = 1_767_225_600_000;

function setup(config: Record<string, string> = {}) {
  const clock = new ManualClock(START_MS * 1000);
  const server = createServer({ clock, config: { save: '', 'enable-debug-command': 'yes', ...config } });
  const c = server.connect();
  const propagated: string[][] = [];
  server.onPropagate((_db, argv) => propagated.push(argv));
  const run = (...argv: string[]): Reply => server.execute(c, argv);
  return { clock, server, c, run, propagated };
}

describe('DUMP and RESTORE', () => {
  it('RESTORE of a DUMP gives back the value in the same encoding', () => {
    const { run } = setup();
    const build: string[][] = [
      ['SET', 's', 'x'.repeat(200)],
      ['RPUSH', 'l', ...Array.from({ length: 5000 }, (_, i) => `e${i}`)],
      ['SADD', 'si', '1', '2'],
      ['SADD', 'sh', 'a', 'b'],
      ['ZADD', 'z', '1', 'a', '2', 'b'],
      ['HSET', 'h', 'f', 'v'],
    ];
    for (const cmd of build) run(...cmd);
    for (const key of ['s', 'l', 'si', 'sh', 'z', 'h']) {
      const payload = run('DUMP', key) as string;
      expect(run('RESTORE', `${key}-copy`, '0', payload)).toEqual(new StatusReply('OK'));
      expect(run('DEBUG', 'DIGEST-VALUE', `${key}-copy`)).toEqual(run('DEBUG', 'DIGEST-VALUE', key));
      expect(run('OBJECT', 'ENCODING', `${key}-copy`)).toBe(run('OBJECT', 'ENCODING', key));
      expect(run('DUMP', `${key}-copy`)).toBe(payload);
    }
  });

  it('RESTORE propagates a relative TTL as an absolute one with ABSTTL', () => {
    const { run, propagated } = setup();
    run('SET', 'k', 'v');
    const payload = run('DUMP', 'k') as string;
    run('RESTORE', 'r', '5000', payload);
    expect(propagated.at(-1)).toEqual(['RESTORE', 'r', String(START_MS + 5000), payload, 'ABSTTL']);
    run('RESTORE', 'a', String(START_MS + 9000), payload, 'ABSTTL');
    expect(propagated.at(-1)).toEqual(['RESTORE', 'a', String(START_MS + 9000), payload, 'ABSTTL']);
    expect(run('PTTL', 'a')).toBe(9000);
  });

  it('RESTORE REPLACE with a time already past deletes the key and propagates DEL', () => {
    const { server, run, propagated } = setup();
    run('SET', 'k', 'v');
    const payload = run('DUMP', 'k') as string;
    const dirty = server.dirty;
    expect(run('RESTORE', 'k', '1', payload, 'ABSTTL', 'REPLACE')).toEqual(new StatusReply('OK'));
    expect(run('EXISTS', 'k')).toBe(0);
    expect(server.dirty).toBe(dirty + 1);
    expect(propagated.at(-1)).toEqual(['DEL', 'k']);
    const before = propagated.length;
    expect(run('RESTORE', 'gone', '1', payload, 'ABSTTL')).toEqual(new StatusReply('OK'));
    expect(propagated.length).toBe(before);
  });

  it('RESTORE checks the payload unless checksums are switched off', () => {
    const { run } = setup();
    run('SET', 'k', 'v');
    const payload = run('DUMP', 'k') as string;
    const damaged = payload.slice(0, -1) + String.fromCharCode(payload.charCodeAt(payload.length - 1) ^ 1);
    expect((run('RESTORE', 'x', '0', damaged) as ErrorReply).message).toBe('ERR DUMP payload version or checksum are wrong');
    run('DEBUG', 'SET-SKIP-CHECKSUM-VALIDATION', '1');
    expect(run('RESTORE', 'x', '0', damaged)).toEqual(new StatusReply('OK'));
  });
});

describe('DEBUG RELOAD', () => {
  it('keeps the dataset, TTLs and digest, and resets the dirty counter', () => {
    const { clock, server, run } = setup();
    run('SET', 'a', '1');
    run('SET', 't', 'v', 'PX', '60000');
    run('RPUSH', 'l', ...Array.from({ length: 3000 }, (_, i) => `e${i}`));
    run('HSET', 'h', ...Array.from({ length: 1000 }, (_, i) => [`f${i}`, `v${i}`]).flat());
    run('SELECT', '9');
    run('ZADD', 'z', '1', 'x');
    const digest = run('DEBUG', 'DIGEST');
    clock.advanceUs(5_000_000);
    expect(run('DEBUG', 'RELOAD')).toEqual(new StatusReply('OK'));
    expect(run('DEBUG', 'DIGEST')).toEqual(digest);
    expect(server.dirty).toBe(0);
    expect(server.stats.persistence.rdbLastLoadKeysLoaded).toBe(5);
    run('SELECT', '0');
    expect(run('PTTL', 't')).toBe(55000);
    expect(lastSavedRdb(server)).toBeInstanceOf(Uint8Array);
  });

  it('logs what rdbLoad logs, then that the DB was reloaded', () => {
    const { server, run } = setup();
    const lines: string[] = [];
    server.logHook = (text) => lines.push(text);
    run('SET', 'a', '1');
    run('SET', 'b', '2');
    run('DEBUG', 'RELOAD');
    expect(lines[0]).toMatch(/^Loading RDB produced by version \d+\.\d+\.\d+$/);
    expect(lines.slice(-2)).toEqual(['Done loading RDB, keys loaded: 2, keys expired: 0.', 'DB reloaded by DEBUG RELOAD']);
  });

  it('recomputes encodings as a load does', () => {
    const { run } = setup();
    run('SADD', 's', '1', 'x');
    run('SREM', 's', 'x');
    run('ZADD', 'z', '1', 'y'.repeat(100), '2', 'b');
    run('ZREM', 'z', 'y'.repeat(100));
    expect([run('OBJECT', 'ENCODING', 's'), run('OBJECT', 'ENCODING', 'z')]).toEqual(['hashtable', 'skiplist']);
    run('DEBUG', 'RELOAD');
    expect([run('OBJECT', 'ENCODING', 's'), run('OBJECT', 'ENCODING', 'z')]).toEqual(['intset', 'listpack']);
  });

  it('drops keys that expired in the meantime', () => {
    const { clock, server, run } = setup();
    run('SET', 'k', 'v', 'PX', '100');
    run('DEBUG', 'SET-ACTIVE-EXPIRE', '0');
    run('DEBUG', 'RELOAD');
    clock.advanceUs(200_000);
    run('DEBUG', 'RELOAD', 'NOSAVE');
    expect(server.dbs[0]!.dict.size).toBe(0);
    expect(server.stats.persistence.rdbLastLoadKeysExpired).toBe(1);
  });
});
