import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { HOST_SHA1_MIN_BYTES, sha1, useHostSha1 } from '../../emulator/numbers/sha1.js';
import { datasetDigest } from '../../emulator/commands/debug-digest.js';
import { bytesFromArray } from '../../emulator/resp/bytes.js';
import { createServer } from '../../emulator/index.js';
import { StatusReply, type Reply } from '../../emulator/resp/reply.js';
import { ManualClock } from '../../emulator/sim/clock.js';
import { hostSha1 } from '../../src/node/host-sha1.js';

const hex = (d: Uint8Array): string => Buffer.from(d).toString('hex');
const status = (r: Reply): string => (r instanceof StatusReply ? r.text : `not a status: ${String(r)}`);

describe('SHA-1 of the emulator and of the Node host', () => {
  afterEach(() => useHostSha1(null));

  it("the emulator's loop gives Node's hash for strings and bytes of every length around the block and host boundaries", () => {
    const lengths = [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 128, HOST_SHA1_MIN_BYTES - 1, HOST_SHA1_MIN_BYTES, 1000];
    const cases = [...lengths.map((n) => new Uint8Array(n).map((_, i) => (i * 131 + n) & 0xff))];
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 700 }), (a) => {
        cases.push(a);
        return true;
      }),
      { numRuns: 40 },
    );
    for (const withHost of [false, true]) {
      useHostSha1(withHost ? hostSha1 : null);
      for (const a of cases) {
        const expected = createHash('sha1').update(a).digest('hex');
        expect(hex(sha1(a))).toBe(expected);
        expect(hex(sha1(bytesFromArray(a)))).toBe(expected);
      }
    }
  });

  it('DEBUG DIGEST hands long values to the host and gives the same digest', () => {
    const server = createServer({ clock: new ManualClock(1_767_225_600_000_000), config: { 'enable-debug-command': 'yes' } });
    const c = server.connect();
    server.execute(c, ['SET', 'big', 'x'.repeat(10_000)]);
    server.execute(c, ['RPUSH', 'list', 'a', 'y'.repeat(HOST_SHA1_MIN_BYTES)]);
    const loops = status(server.execute(c, ['DEBUG', 'DIGEST']));
    let hostCalls = 0;
    useHostSha1((data) => {
      hostCalls++;
      return hostSha1(data);
    });
    expect(status(server.execute(c, ['DEBUG', 'DIGEST']))).toBe(loops);
    expect(hostCalls).toBe(2);
    expect(loops).toMatch(/^[0-9a-f]{40}$/);
    expect(datasetDigest([])).toBe('0'.repeat(40));
  });
});
