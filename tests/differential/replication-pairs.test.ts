/**
 * Replication pairs against a pair of real servers: the same script runs on
 * a real primary with a real replica (the reference), on a real primary with
 * the emulator (`npm run server`) as its replica, and on the emulator as
 * primary with a real replica. Clients c1-c9 talk to the replica, c10 and up
 * to the primary; every reply must agree byte for byte with the reference
 * (or by the rule its step names). In a script, {primary-port} and
 * {replica-port} stand for the ports of the pair it runs on.
 *
 * The scripts wait for states, never for time: WAIT on the primary returns
 * once the replica has applied the stream up to it, and a write sent to a
 * primary handing over with FAILOVER is answered once the handover is done.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { HAVE_REAL_REDIS, skipNotice } from './availability.js';
import { Pair, startEmulator, startReal } from './replica-pairs.js';
import { formatMismatches, runSideBySide } from './runner.js';
import { parseScript } from './script.js';

const root = join(import.meta.dirname, 'pairs');
const files = readdirSync(root).filter((f) => f.endsWith('.redis')).sort();

describe.skipIf(!HAVE_REAL_REDIS)(HAVE_REAL_REDIS ? 'replication pairs' : `replication pairs (${skipNotice()})`, () => {
  for (const name of files) {
    // The scripts, and the three pairs of each, run side by side: their time
    // goes mostly to waiting for the servers (a sync, FAILOVER's steps at
    // serverCron's pace, a replica kept busy by DEBUG SLEEP).
    it.concurrent(`${name}: the emulator as replica of a real primary, and as primary of a real replica, answer as a real pair`, async ({ expect }) => {
      const steps = parseScript(readFileSync(join(root, name), 'utf8'));
      const pairs = await Promise.all([Pair.start(startReal, startReal), Pair.start(startReal, startEmulator), Pair.start(startEmulator, startReal)]);
      const [real, emulatorReplica, emulatorPrimary] = pairs;
      try {
        const mismatches = await runSideBySide(steps, real!, { 'emulator replica': emulatorReplica!, 'emulator primary': emulatorPrimary! });
        expect(formatMismatches(name, mismatches)).toBe('');
      } finally {
        await Promise.all(pairs.map((p) => p.close()));
      }
    }, 60_000);
  }
});
