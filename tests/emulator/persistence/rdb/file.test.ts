import { describe, expect, it } from 'vitest';
import { Deque } from '../../../../emulator/keyspace/deque.js';
import { HashValue, ListValue, SetValue, ZSetValue, encodingOf, type Value } from '../../../../emulator/keyspace/values.js';
import { ByteWriter } from '../../../../emulator/keyspace/encoding/byte-writer.js';
import { Crc64 } from '../../../../emulator/persistence/rdb/crc64.js';
import { RdbError, readRdb, writeRdb, type RdbContents, type RdbKey, type RdbReadOptions, type RdbWriteOptions } from '../../../../emulator/persistence/rdb/index.js';
import { writeLength, writeString } from '../../../../emulator/persistence/rdb/string-encoding.js';

const NOW_MS = 1_767_225_600_000;

const writeOpts: RdbWriteOptions = {
  compression: true,
  fill: -2,
  compressDepth: 0,
  packedThreshold: 1 << 30,
  checksum: true,
  aux: { redisVersion: '7.0.15', ctimeSeconds: 1767225600, usedMemoryBytes: 1000000, aofBase: false },
};

const readOpts: RdbReadOptions = {
  hashMaxListpackEntries: 512,
  hashMaxListpackValue: 64,
  setMaxIntsetEntries: 512,
  zsetMaxListpackEntries: 128,
  zsetMaxListpackValue: 64,
  deepSanitize: false,
  databases: 16,
  verifyChecksum: true,
  nowMs: NOW_MS,
  dropExpired: true,
  allowDuplicates: false,
};

function list(...items: string[]): ListValue {
  return new ListValue(Deque.from(items));
}
function set(encoding: 'intset' | 'hashtable', ...members: string[]): SetValue {
  const s = new SetValue(encoding);
  for (const m of members) s.set.add(m);
  return s;
}
function zset(encoding: 'listpack' | 'skiplist', ...pairs: Array<[string, number]>): ZSetValue {
  const z = new ZSetValue(encoding);
  for (const [m, score] of pairs) z.set(m, score);
  return z;
}
function hash(encoding: 'listpack' | 'hashtable', ...pairs: Array<[string, string]>): HashValue {
  const h = new HashValue(encoding);
  for (const [f, v] of pairs) h.map.set(f, v);
  return h;
}

/** A comparable picture of a value: its type, encoding and contents. */
function picture(v: Value): unknown {
  if (typeof v === 'string') return ['string', encodingOf(v), v];
  switch (v.type) {
    case 'string':
      return ['string', v.encoding, v.s];
    case 'list':
      return ['list', v.items.toArray()];
    case 'set':
      return ['set', v.encoding, [...v.set].sort()];
    case 'zset':
      return ['zset', v.encoding, [...v.list].map((n) => [n.member, n.score])];
    case 'hash':
      return ['hash', v.encoding, [...v.map]];
  }
}

function file(dbs: Array<{ id: number; keys: RdbKey[] }>, opts: Partial<RdbWriteOptions> = {}): Uint8Array {
  return writeRdb(
    dbs.map((d) => ({ id: d.id, size: d.keys.length, expiresSize: d.keys.filter((k) => k.expireAtMs !== undefined).length, keys: d.keys })),
    { ...writeOpts, ...opts },
  );
}

function load(bytes: Uint8Array, opts: Partial<RdbReadOptions> = {}): RdbContents {
  const r = readRdb(bytes, { ...readOpts, ...opts });
  if (r instanceof RdbError) throw new Error(`${r.code}: ${r.message}`);
  return r;
}

/** A file made by hand: magic, then `body`, EOF and a good checksum. */
function handmade(body: (w: ByteWriter) => void, version = '0010'): Uint8Array {
  const w = new ByteWriter();
  w.str(`REDIS${version}`);
  body(w);
  w.byte(0xff);
  w.bytes(new Crc64().update(w.view()).bytesLE());
  return w.finish();
}

describe('RDB file round trip', () => {
  it('reads back every type and encoding it writes', () => {
    const values: Record<string, Value> = {
      int: '12345',
      str: 'hello',
      long: 'x'.repeat(100),
      bin: '\x00\xff\r\n',
      list: list('a', '1', '-70000', 'b'.repeat(5000)),
      biglist: list(...Array.from({ length: 5000 }, (_, i) => `e${i}`)),
      intset: set('intset', '1', '-5', '9223372036854775807'),
      table: set('hashtable', 'a', 'b', 'c'),
      zlp: zset('listpack', ['a', 1.5], ['b', -3], ['c', Infinity]),
      zsl: zset('skiplist', ...Array.from({ length: 200 }, (_, i) => [`m${i}`, i / 7] as [string, number])),
      hlp: hash('listpack', ['f', 'v'], ['n', '42']),
      htab: hash('hashtable', ...Array.from({ length: 600 }, (_, i) => [`f${i}`, `v${i}`] as [string, string])),
    };
    const keys = Object.entries(values).map(([key, value]) => ({ key, value }));
    const contents = load(file([{ id: 0, keys }, { id: 5, keys: [{ key: 'other', value: 'db5', expireAtMs: NOW_MS + 60000 }] }]));
    expect([...contents.databases.keys()]).toEqual([0, 5]);
    const db0 = contents.databases.get(0)!;
    for (const [key, value] of Object.entries(values)) expect(picture(db0.get(key)!.value)).toEqual(picture(value));
    expect(contents.databases.get(5)!.get('other')!.expireAtMs).toBe(NOW_MS + 60000);
    expect(contents.keysLoaded).toBe(13);
    expect(contents.aux).toEqual([
      ['redis-ver', '7.0.15'],
      ['redis-bits', '64'],
      ['ctime', '1767225600'],
      ['used-mem', '1000000'],
      ['aof-base', '0'],
    ]);
  });

  it('writes the replication aux fields only when given, before aof-base', () => {
    const bytes = file([], { aux: { ...writeOpts.aux, aofBase: true, replication: { streamDb: 3, replId: 'a'.repeat(40), offset: 1234 } } });
    expect(load(bytes).aux.map(([k]) => k)).toEqual(['redis-ver', 'redis-bits', 'ctime', 'used-mem', 'repl-stream-db', 'repl-id', 'repl-offset', 'aof-base']);
    expect(load(bytes).aux.at(-1)).toEqual(['aof-base', '1']);
  });

  it('skips empty databases and writes a zero checksum when rdbchecksum is off', () => {
    const bytes = file([{ id: 0, keys: [] }], { checksum: false });
    expect(Buffer.from(bytes.subarray(-9)).toString('hex')).toBe('ff0000000000000000');
    expect(load(bytes).warnings).toContain('RDB file was saved with checksum disabled: no check performed.');
  });

  it('keeps IDLE and FREQ with the key they precede', () => {
    const contents = load(file([{ id: 0, keys: [{ key: 'a', value: 'v', idleSeconds: 300 }, { key: 'b', value: 'v', lfuFreq: 17 }] }]));
    expect(contents.databases.get(0)!.get('a')).toEqual({ value: 'v', idleSeconds: 300 });
    expect(contents.databases.get(0)!.get('b')).toEqual({ value: 'v', lfuFreq: 17 });
  });
});

describe('RDB loading rules', () => {
  it('drops keys already expired when loading as a primary, keeps them otherwise', () => {
    const bytes = file([{ id: 0, keys: [{ key: 'old', value: 'v', expireAtMs: NOW_MS - 1 }, { key: 'new', value: 'v', expireAtMs: NOW_MS + 1 }] }]);
    const primary = load(bytes);
    expect([...primary.databases.get(0)!.keys()]).toEqual(['new']);
    expect(primary.keysExpired).toBe(1);
    expect([...load(bytes, { dropExpired: false }).databases.get(0)!.keys()]).toEqual(['old', 'new']);
  });

  it('gives small collections their compact encoding again', () => {
    const contents = load(
      file([
        {
          id: 0,
          keys: [
            { key: 's', value: set('hashtable', '1', '2') },
            { key: 'z', value: zset('skiplist', ['a', 1], ['b', -0]) },
            { key: 'h', value: hash('hashtable', ['f', 'v']) },
          ],
        },
      ]),
    );
    const db = contents.databases.get(0)!;
    expect(picture(db.get('s')!.value)).toEqual(['set', 'intset', ['1', '2']]);
    expect(picture(db.get('z')!.value)).toEqual(['zset', 'listpack', [['b', 0], ['a', 1]]]);
    expect(picture(db.get('h')!.value)).toEqual(['hash', 'listpack', [['f', 'v']]]);
  });

  it('converts what the configuration no longer allows in a compact encoding', () => {
    const bytes = file([
      {
        id: 0,
        keys: [
          { key: 's', value: set('intset', '1', '2', '3') },
          { key: 'z', value: zset('listpack', ['a', 1], ['b', 2], ['c', 3]) },
          { key: 'h', value: hash('listpack', ['a', '1'], ['b', '2']) },
        ],
      },
    ]);
    const db = load(bytes, { setMaxIntsetEntries: 2, zsetMaxListpackEntries: 2, hashMaxListpackEntries: 1 }).databases.get(0)!;
    expect(encodingOf(db.get('s')!.value)).toBe('hashtable');
    expect(encodingOf(db.get('z')!.value)).toBe('skiplist');
    expect(encodingOf(db.get('h')!.value)).toBe('hashtable');
  });

  it('skips empty collections, counting them', () => {
    const bytes = handmade((w) => {
      w.byte(0xfe);
      writeLength(w, 0);
      w.byte(1);
      writeString(w, 'empty', false);
      writeLength(w, 0);
      w.byte(0);
      writeString(w, 'k', false);
      writeString(w, 'v', false);
    });
    const contents = load(bytes);
    expect(contents.emptyKeysSkipped).toBe(1);
    expect(contents.warnings).toContain('rdbLoadObject skipping empty key: empty');
    expect([...contents.databases.get(0)!.keys()]).toEqual(['k']);
  });

  it('reads expiry times in seconds, aux fields and function libraries', () => {
    const bytes = handmade((w) => {
      w.byte(0xfa);
      writeString(w, 'lua', false);
      writeString(w, 'anything', false);
      w.byte(0xf5);
      writeString(w, '#!lua name=lib\nredis.register_function("f", function() return 1 end)', false);
      w.byte(0xfd);
      w.u32le(2000000000);
      w.byte(0);
      writeString(w, 'k', false);
      writeString(w, 'v', false);
    });
    const contents = load(bytes);
    expect(contents.databases.get(0)!.get('k')!.expireAtMs).toBe(2000000000000);
    expect(contents.functions).toHaveLength(1);
    expect(contents.aux).toEqual([['lua', 'anything']]);
  });

  it('lets a repeated key replace the first only when duplicates are allowed', () => {
    const bytes = file([{ id: 0, keys: [{ key: 'k', value: 'one' }, { key: 'k', value: 'two' }] }]);
    const err = readRdb(bytes, readOpts) as RdbError;
    expect(err.code).toBe('duplicate-key');
    expect(err.message).toBe("RDB has duplicated key 'k' in DB 0");
    expect(load(bytes, { allowDuplicates: true }).databases.get(0)!.get('k')!.value).toBe('two');
  });
});

describe('damaged RDB files', () => {
  const good = file([{ id: 0, keys: [{ key: 'k', value: 'v'.repeat(30) }] }]);

  function error(bytes: Uint8Array, opts: Partial<RdbReadOptions> = {}): RdbError {
    const r = readRdb(bytes, { ...readOpts, ...opts });
    expect(r).toBeInstanceOf(RdbError);
    return r as RdbError;
  }

  it('rejects a wrong signature and unknown versions', () => {
    const bad = good.slice();
    bad[0] = 0x58;
    expect(error(bad)).toMatchObject({ code: 'bad-magic', message: 'Wrong signature trying to load DB from file' });
    const v11 = good.slice();
    v11[8] = 0x31;
    v11[7] = 0x31;
    expect(error(v11)).toMatchObject({ code: 'bad-version', message: "Can't handle RDB format version 11" });
    const v0 = Uint8Array.from(Buffer.from('REDIS0000\xff', 'latin1'));
    expect(error(v0).message).toBe("Can't handle RDB format version 0");
  });

  it('reports a short read at any cut', () => {
    for (const cut of [3, 9, 20, good.length - 12, good.length - 1]) {
      expect(error(good.subarray(0, cut))).toMatchObject({ code: 'short-read', message: 'Unexpected EOF reading RDB file' });
    }
  });

  it('reports a checksum mismatch, unless checksums are not verified or were not stored', () => {
    const bad = good.slice();
    bad[12] ^= 0x20; // a letter of "redis-ver"
    const e = error(bad);
    expect(e.code).toBe('checksum');
    expect(e.message).toBe('RDB CRC error');
    expect(e.detail).toMatch(/^Wrong RDB checksum expected: \([0-9a-f]+\) but got \([0-9a-f]+\)\. Aborting now\.$/);
    const flipped = good.slice();
    flipped[flipped.length - 1] ^= 1;
    expect(error(flipped).code).toBe('checksum');
    expect(readRdb(flipped, { ...readOpts, verifyChecksum: false })).not.toBeInstanceOf(RdbError);
  });

  it('does not verify checksums of files before version 5', () => {
    const old = handmade((w) => {
      w.byte(0);
      writeString(w, 'k', false);
      writeString(w, 'v', false);
    }, '0004');
    // Version 4 has no checksum: the eight bytes after EOF are left unread.
    expect(load(old).length).toBe(old.length - 8);
  });

  it('rejects unknown value types, unknown string encodings and bad LZF data', () => {
    const unknownType = handmade((w) => {
      w.byte(8);
      writeString(w, 'k', false);
    });
    expect(error(unknownType)).toMatchObject({ code: 'unknown-type', message: 'Unknown RDB encoding type 8' });
    const badEncoding = handmade((w) => {
      w.byte(0);
      writeString(w, 'k', false);
      w.byte(0xc5);
    });
    expect(error(badEncoding)).toMatchObject({ code: 'corrupt', message: 'Unknown RDB string encoding type 5' });
    const badLzf = handmade((w) => {
      w.byte(0);
      writeString(w, 'k', false);
      w.byte(0xc3);
      writeLength(w, 2);
      writeLength(w, 10);
      w.byte(0x20);
      w.byte(0x05);
    });
    expect(error(badLzf)).toMatchObject({ code: 'corrupt', message: 'Invalid LZF compressed string' });
  });

  it('rejects a database beyond the configured count, and a stream that runs into the end of the file', () => {
    const far = file([{ id: 20, keys: [{ key: 'k', value: 'v' }] }]);
    expect(error(far).code).toBe('db-out-of-range');
    expect(load(far, { databases: 32 }).databases.get(20)!.size).toBe(1);
    const stream = handmade((w) => {
      w.byte(15);
      writeString(w, 'k', false);
    });
    expect(error(stream).code).toBe('corrupt');
  });

  it('rejects damaged containers with Redis\'s messages', () => {
    const cases: Array<[number, string]> = [
      [16, 'Hash listpack integrity check failed.'],
      [17, 'Zset listpack integrity check failed.'],
      [11, 'Intset integrity check failed.'],
      [13, 'Hash ziplist integrity check failed.'],
      [12, 'Zset ziplist integrity check failed.'],
      [10, 'List ziplist integrity check failed.'],
      [9, 'Zipmap integrity check failed.'],
    ];
    for (const [type, message] of cases) {
      const bytes = handmade((w) => {
        w.byte(type);
        writeString(w, 'k', false);
        writeString(w, 'garbage', false);
      });
      expect(error(bytes)).toMatchObject({ code: 'corrupt', message });
    }
  });
});
