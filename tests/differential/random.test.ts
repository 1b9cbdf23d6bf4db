/**
 * Randomized differential testing: fast-check generates command sequences
 * over a small shared key space; each sequence runs on a real redis-server
 * and on a fresh emulator and every reply must agree. A failure prints the
 * seed; rerun it with FC_SEED=<seed> (and FC_RUNS for more runs).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { HAVE_REAL_REDIS, skipNotice } from './availability.js';
import { EmulatorBackend, RealBackend } from './backends.js';
import { compareReplies } from './compare.js';
import { randomCommand } from './random-commands.js';
import { randomRunOptions } from './fc-options.js';

// Fixed by default so that CI is reproducible; set FC_SEED to explore.
const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : 20261121;
const RUNS = process.env.FC_RUNS ? Number(process.env.FC_RUNS) : 300;

describe.skipIf(!HAVE_REAL_REDIS)(HAVE_REAL_REDIS ? 'randomized differential' : `randomized differential (${skipNotice()})`, () => {
  let real: RealBackend;
  beforeAll(async () => {
    real = await RealBackend.start();
  });
  afterAll(async () => {
    await real?.close();
  });

  it(`random command sequences agree with redis-server (seed ${SEED}, ${RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(randomCommand, { minLength: 1, maxLength: 40 }), async (cmds) => {
        // A clean keyspace and a fresh emulator; the real client is reset
        // (it may have been left inside MULTI) before each run.
        const client = 1;
        await real.command(client, ['DISCARD']);
        await real.command(client, ['UNWATCH']);
        await real.command(client, ['FLUSHALL']);
        const emu = new EmulatorBackend();
        const transcript: string[] = [];
        try {
          for (const c of cmds) {
            const a = await real.command(client, c.argv);
            const b = await emu.command(1, c.argv);
            transcript.push(`${JSON.stringify(c.argv)} -> ${JSON.stringify(a)}`);
            const why = compareReplies(a, b, c.compare);
            if (why) {
              throw new Error(`${why}\n  command:  ${JSON.stringify(c.argv)}\n  real:     ${JSON.stringify(a)}\n  emulator: ${JSON.stringify(b)}\n  after:\n    ${transcript.slice(0, -1).join('\n    ')}`);
            }
          }
        } finally {
          await emu.close();
        }
      }),
      randomRunOptions('Randomized differential test', SEED, RUNS),
    );
  });

  it(`random sequences from two clients agree, WATCH and MULTI included (seed ${SEED}, ${RUNS} runs)`, async () => {
    const step = fc.tuple(fc.constantFrom(1, 2), randomCommand);
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 40 }), async (steps) => {
        for (const client of [1, 2]) {
          await real.command(client, ['DISCARD']);
          await real.command(client, ['UNWATCH']);
        }
        await real.command(1, ['FLUSHALL']);
        const emu = new EmulatorBackend();
        const transcript: string[] = [];
        try {
          for (const [client, c] of steps) {
            const a = await real.command(client, c.argv);
            const b = await emu.command(client, c.argv);
            transcript.push(`c${client}> ${JSON.stringify(c.argv)} -> ${JSON.stringify(a)}`);
            const why = compareReplies(a, b, c.compare);
            if (why) {
              throw new Error(`${why}\n  command:  c${client}> ${JSON.stringify(c.argv)}\n  real:     ${JSON.stringify(a)}\n  emulator: ${JSON.stringify(b)}\n  after:\n    ${transcript.slice(0, -1).join('\n    ')}`);
            }
          }
        } finally {
          await emu.close();
        }
      }),
      randomRunOptions('Randomized two-client test', SEED + 1, RUNS, 1),
    );
  });
});
