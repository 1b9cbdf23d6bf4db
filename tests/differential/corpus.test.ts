/**
 * The differential corpus: every script under corpus/ runs against a fresh
 * real redis-server and a fresh emulator; every reply must agree byte for
 * byte (or by the rule its step names).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HAVE_REAL_REDIS, skipNotice } from './availability.js';
import { EmulatorBackend, RealBackend } from './backends.js';
import { WorldBackend } from './world-backend.js';
import { formatMismatches, runDifferential } from './runner.js';
import { parseScript } from './script.js';

const root = join(import.meta.dirname, 'corpus');

function scripts(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...scripts(p));
    else if (name.endsWith('.redis')) out.push(p);
  }
  return out;
}

const files = scripts(root);

describe.skipIf(!HAVE_REAL_REDIS)(HAVE_REAL_REDIS ? 'differential corpus' : `differential corpus (${skipNotice()})`, () => {
  for (const file of files) {
    const name = relative(root, file);
    it(name, async () => {
      const steps = parseScript(readFileSync(file, 'utf8'));
      const real = await RealBackend.start();
      // The emulator called directly, and the emulator as a process in the
      // simulated world with every byte crossing the simulated network.
      const emu = new EmulatorBackend();
      const world = new WorldBackend();
      try {
        const mismatches = await runDifferential(steps, real, { direct: emu, world });
        expect(formatMismatches(name, mismatches)).toBe('');
      } finally {
        await Promise.all([real.close(), emu.close(), world.close()]);
      }
    });
  }
});
