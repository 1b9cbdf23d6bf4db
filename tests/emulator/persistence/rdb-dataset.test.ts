import { describe, expect, it } from 'vitest';
import { Deque } from '../../../emulator/keyspace/deque.js';
import { ListValue } from '../../../emulator/keyspace/values.js';
import { RdbError, readRdb, writeRdb, type RdbKey, type RdbReadOptions } from '../../../emulator/persistence/rdb/index.js';
import { placeLoadedKeys, valueReadOptions } from '../../../emulator/persistence/rdb-dataset.js';
import { loadRdbIntoServer } from '../../../emulator/persistence/rdb-load.js';
import type { RedisServer } from '../../../emulator/server/server.js';
import { createServer } from '../../../emulator/process/create-server.js';
import { ManualClock } from '../../../emulator/sim/clock.js';

const NOW_MS = 1_767_225_600_000;

function file(dbs: Array<{ id: number; keys: RdbKey[] }>): Uint8Array {
  return writeRdb(
    dbs.map((d) => ({ id: d.id, size: d.keys.length, expiresSize: d.keys.filter((k) => k.expireAtMs !== undefined).length, keys: d.keys })),
    {
      compression: true,
      fill: -2,
      compressDepth: 0,
      packedThreshold: 1 << 30,
      checksum: true,
      aux: { redisVersion: '7.0.15', ctimeSeconds: NOW_MS / 1000, usedMemoryBytes: 1000000, aofBase: false },
    },
  );
}

function server(policy = 'noeviction'): RedisServer {
  const s = createServer({ clock: new ManualClock(NOW_MS * 1000) });
  s.config.set('maxmemory-policy', policy, true);
  return s;
}

function options(s: RedisServer, opts: Partial<RdbReadOptions> = {}): RdbReadOptions {
  return { ...valueReadOptions(s), databases: 16, verifyChecksum: true, nowMs: NOW_MS, dropExpired: true, allowDuplicates: false, ...opts };
}

/** Each database's keys in order, with value, expiry and access data. */
function dump(s: RedisServer): unknown {
  return s.dbs
    .filter((db) => db.dict.size !== 0)
    .map((db) => [db.id, [...db.dict].map(([k, v]) => [k, typeof v === 'string' ? v : v.type, db.expires.get(k), db.access.get(k)])]);
}

const KEYS: RdbKey[] = [
  { key: 'a', value: 'plain', idleSeconds: 10 },
  { key: 'b', value: '12345', expireAtMs: NOW_MS + 60_000, idleSeconds: 0 },
  { key: 'gone', value: 'expired', expireAtMs: NOW_MS - 1 },
  { key: 'l', value: new ListValue(Deque.from(['x', 'y'])), idleSeconds: 3600 },
];

describe('loading a file into a starting server', () => {
  it('gives the same keys, order, expiries and idle times as reading the file and placing its keys', () => {
    const bytes = file([{ id: 0, keys: KEYS }, { id: 3, keys: [{ key: 'a', value: 'in db 3' }] }]);
    const streamed = server('allkeys-lru');
    const gathered = server('allkeys-lru');
    const r = loadRdbIntoServer(streamed, bytes, options(streamed));
    const contents = readRdb(bytes, options(gathered));
    if (r instanceof RdbError || contents instanceof RdbError) throw new Error('the file did not load');
    placeLoadedKeys(gathered, contents, false);
    expect(dump(streamed)).toEqual(dump(gathered));
    expect(dump(streamed)).not.toEqual([]);
    expect([r.keysLoaded, r.keysExpired]).toEqual([4, 1]);
    expect(r.databases.size).toBe(0);
  });

  it('stops at a key repeated in the file, or lets the later copy replace the first when duplicates are allowed', () => {
    const bytes = file([{ id: 0, keys: [{ key: 'k', value: 'one' }, { key: 'z', value: 'v' }, { key: 'k', value: 'two', expireAtMs: NOW_MS + 5000 }] }]);
    const strict = server();
    const err = loadRdbIntoServer(strict, bytes, options(strict)) as RdbError;
    expect(err.code).toBe('duplicate-key');
    expect(err.message).toBe("RDB has duplicated key 'k' in DB 0");
    const merged = server();
    expect(loadRdbIntoServer(merged, bytes, options(merged, { allowDuplicates: true }))).not.toBeInstanceOf(RdbError);
    expect([...merged.dbs[0]!.dict]).toEqual([
      ['z', 'v'],
      ['k', 'two'],
    ]);
    expect(merged.dbs[0]!.expires.get('k')).toBe(NOW_MS + 5000);
  });

  it('leaves the keys a server already holds as they are, as placing loaded keys does', () => {
    const s = server();
    s.dbs[0]!.add('k', 'old');
    const bytes = file([{ id: 0, keys: [{ key: 'k', value: 'new' }, { key: 'x', value: 'loaded' }] }]);
    const r = loadRdbIntoServer(s, bytes, options(s));
    expect(r).not.toBeInstanceOf(RdbError);
    expect([...s.dbs[0]!.dict]).toEqual([
      ['k', 'old'],
      ['x', 'loaded'],
    ]);
  });
});
