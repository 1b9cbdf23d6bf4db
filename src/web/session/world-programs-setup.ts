import { registerShellProgram } from '../../../emulator/programs/shell.js';
import type { World } from '../../../emulator/sim/world.js';
import { installWorkbookPrograms } from '../world-programs.js';

const extraSetups = new Set<(world: World) => void>();

/**
 * Registers on a world every program the page's recorded actions can
 * name, so that a world restored from a checkpoint replays them: the host
 * shell (with the Redis host installation it uses), the panels' own
 * programs (uploads, disk faults, starting a server again), and those
 * added with addWorldProgramSetup.
 */
export function setupWorldPrograms(world: World): void {
  registerShellProgram(world);
  installWorkbookPrograms(world);
  for (const setup of extraSetups) setup(world);
}

/**
 * Adds programs every restored world registers before its replay (a
 * part of the page that records actions of its own program names).
 * Returns the removal.
 */
export function addWorldProgramSetup(setup: (world: World) => void): () => void {
  extraSetups.add(setup);
  return () => extraSetups.delete(setup);
}
