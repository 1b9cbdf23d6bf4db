/**
 * MODULE on servers started with enable-module-command yes: a server that
 * has no modules lists none, fails every load as Redis does when dlopen()
 * finds no library (LOADEX's arguments read first), and finds no module
 * to unload.
 */
import { describe, expect, it } from 'vitest';
import { HAVE_REAL_REDIS, skipNotice } from './availability.js';
import { EmulatorBackend, RealBackend } from './backends.js';
import { formatMismatches, runDifferential } from './runner.js';
import { parseScript } from './script.js';

const SCRIPT = `
MODULE LIST
MODULE LOAD /nowhere/module.so
MODULE LOAD /nowhere/module.so arg1 arg2
MODULE LOADEX /nowhere/module.so
MODULE LOADEX /nowhere/module.so CONFIG name value ARGS a b
MODULE LOADEX /nowhere/module.so CONFIG name
MODULE LOADEX /nowhere/module.so bogus
MODULE LOADEX /nowhere/module.so args
MODULE UNLOAD nothing
MODULE UNLOAD
MODULE LIST
`;

describe.skipIf(!HAVE_REAL_REDIS)(HAVE_REAL_REDIS ? 'MODULE allowed' : `MODULE allowed (${skipNotice()})`, () => {
  it('lists no module, fails each load and finds nothing to unload, as redis-server without modules does', async () => {
    const real = await RealBackend.start(['--enable-module-command', 'yes']);
    const emu = new EmulatorBackend({ 'enable-module-command': 'yes' });
    try {
      expect(formatMismatches('module', await runDifferential(parseScript(SCRIPT), real, emu))).toBe('');
    } finally {
      await Promise.all([real.close(), emu.close()]);
    }
  });
});
