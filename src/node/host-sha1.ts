import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import type { HostSha1 } from '../../emulator/index.js';

/**
 * Node's SHA-1 for the emulator's DEBUG DIGEST: a byte string is hashed as
 * Latin-1 (each character one byte, what the emulator's strings are). A
 * digest of a 200 MB dataset, which Redis's replication tests take on both
 * ends of a link, spends seconds in the JavaScript loop this replaces.
 */
export const hostSha1: HostSha1 = (data) => {
  const hash = createHash('sha1');
  if (typeof data === 'string') hash.update(data, 'latin1');
  else hash.update(data);
  const out: Buffer = hash.digest();
  return new Uint8Array(out.buffer, out.byteOffset, out.length);
};
