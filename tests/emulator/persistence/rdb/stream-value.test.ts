import { describe, expect, it } from 'vitest';
import { StreamValue } from '../../../../emulator/keyspace/values.js';
import { createDumpPayload, loadDumpPayload } from '../../../../emulator/persistence/rdb/dump-payload.js';
import { RdbError, readRdb, writeRdb } from '../../../../emulator/persistence/rdb/index.js';

/**
 * A stream the emulator cannot model is kept as stored. The payload below
 * is redis-server 7.0.15's DUMP of a stream with two entries, a consumer
 * group "g" and a consumer "alice" holding one pending entry.
 */
const STREAM_DUMP = Uint8Array.from(
  Buffer.from(
    '130110000000000000000100000000000000012e2e0000001200020100010201816102816202000102010001000101010201050102010101dfff02030104010501ff02020001010000020101670101010100000000000000010000000000000001b4e3ef18a2010000010105616c696365b4e3ef18a201000001000000000000000100000000000000010a00331706f79d0df350',
    'hex',
  ),
);

const OPTS = {
  hashMaxListpackEntries: 128,
  hashMaxListpackValue: 64,
  setMaxIntsetEntries: 512,
  zsetMaxListpackEntries: 128,
  zsetMaxListpackValue: 64,
  deepSanitize: false,
};
const WRITE = { compression: true, fill: -2, compressDepth: 0, packedThreshold: 1 << 30 };

function stream(): StreamValue {
  const v = loadDumpPayload(STREAM_DUMP, OPTS);
  if (!(v instanceof StreamValue)) throw new Error('not a stream');
  return v;
}

describe('a stream kept as stored', () => {
  it('reads a real DUMP payload and writes the same bytes back', () => {
    const v = stream();
    expect(v.length).toBe(2);
    expect(v.rdbType).toBe(19);
    expect(Buffer.from(createDumpPayload(v, WRITE)).toString('hex')).toBe(Buffer.from(STREAM_DUMP).toString('hex'));
    expect(Buffer.from(createDumpPayload(v, { ...WRITE, compression: false }))).toEqual(Buffer.from(STREAM_DUMP));
  });

  it('goes through an RDB file with the function libraries, neither losing a byte', () => {
    const code = "#!lua name=lib\nredis.register_function('f', function() return 1 end)";
    const aux = { redisVersion: '7.0.15', ctimeSeconds: 1767225600, usedMemoryBytes: 1, aofBase: false };
    const bytes = writeRdb([{ id: 0, size: 1, expiresSize: 0, keys: [{ key: 's', value: stream() }] }], {
      ...WRITE,
      checksum: true,
      aux,
      functions: [code],
    });
    const c = readRdb(bytes, { ...OPTS, databases: 16, verifyChecksum: true, nowMs: 0, dropExpired: true, allowDuplicates: false });
    if (c instanceof RdbError) throw new Error(c.message);
    expect(c.functions).toEqual([code]);
    const back = c.databases.get(0)!.get('s')!.value;
    expect(Buffer.from(createDumpPayload(back, WRITE))).toEqual(Buffer.from(STREAM_DUMP));
  });

  it('refuses a stream whose node key is not a stream ID, as Redis does', () => {
    const bad = STREAM_DUMP.slice();
    bad[2] = 0x0f; // the first node key's length: 15 bytes instead of 16
    const r = loadDumpPayload(bad, OPTS);
    expect(r).toBeInstanceOf(RdbError);
  });
});
