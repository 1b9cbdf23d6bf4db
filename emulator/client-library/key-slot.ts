/**
 * Where a key lives among shards, by Redis Cluster's rule (src/cluster.c
 * keyHashSlot): CRC16 of the key modulo 16384 slots, and when the key has
 * a `{...}` with something inside, only that part is hashed, so that
 * `{user:1}:name` and `{user:1}:visits` land in the same slot.
 *
 *   keySlot('foo');              // 12182
 *   keySlot('{user:1}:name') === keySlot('{user:1}:visits');   // true
 */

/** Redis Cluster's number of hash slots. */
export const SLOT_COUNT = 16384;

/** CRC16-CCITT (XMODEM: polynomial 0x1021, initial value 0), the variant src/crc16.c computes. */
const TABLE = (() => {
  const t = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let crc = i << 8;
    for (let b = 0; b < 8; b++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    t[i] = crc;
  }
  return t;
})();

/** CRC16 of a byte string (each char one byte, 0-255). */
export function crc16(bytes: string, start = 0, end = bytes.length): number {
  let crc = 0;
  for (let i = start; i < end; i++) crc = ((crc << 8) & 0xffff) ^ TABLE[((crc >> 8) ^ bytes.charCodeAt(i)) & 0xff]!;
  return crc;
}

/**
 * The hash slot of a key given as a byte string: the part between the first
 * `{` and the first `}` after it when that part is not empty, else the
 * whole key.
 */
export function keySlot(key: string): number {
  const open = key.indexOf('{');
  if (open >= 0) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) return crc16(key, open + 1, close) & (SLOT_COUNT - 1);
  }
  return crc16(key) & (SLOT_COUNT - 1);
}

/**
 * The shard, of `shards`, that owns a slot: the slots are split into
 * contiguous ranges of nearly equal size, as redis-cli --cluster create
 * assigns them to the primaries it is given.
 */
export function shardOfSlot(slot: number, shards: number): number {
  return Math.floor((slot * shards) / SLOT_COUNT);
}
