/**
 * Files the disk view's tests and npm run bench -- web read: RDBs written
 * plainly (no compression, every value in its own simple encoding), as a
 * real redis-server 7.0.15 of the same day would write them.
 */
import { writeRdb, type RdbKey } from '../../emulator/persistence/rdb/index.js';

export const PLAIN_RDB = {
  compression: false,
  checksum: true,
  fill: -2,
  compressDepth: 0,
  packedThreshold: 1 << 30,
  aux: { redisVersion: '7.0.15', ctimeSeconds: 1767225600, usedMemoryBytes: 1 << 20, aofBase: false },
} as const;

/** A dump.rdb of db0 holding `key:N` = `value:N` for N below a million. */
export function millionKeyRdb(): Uint8Array {
  const keys = function* (): Generator<RdbKey> {
    for (let i = 0; i < 1_000_000; i++) yield { key: `key:${i}`, value: `value:${i}` };
  };
  return writeRdb([{ id: 0, size: 1_000_000, expiresSize: 0, keys: keys() }], PLAIN_RDB);
}
