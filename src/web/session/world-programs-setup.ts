import { registerHostSetup } from '../../../emulator/programs/index.js';
import type { World } from '../../../emulator/world/world.js';
import { shellPartsNow } from '../shell-loader.js';
import { installWorkbookPrograms } from '../world-programs.js';

const extraSetups = new Set<(world: World) => void>();

/**
 * Registers on a world every program the page's recorded actions can
 * name, so that a world restored from a checkpoint replays them: the host
 * shell (when its code is loaded; a log that names it needs it loaded
 * first, see replayNeedsShell), the Redis host installation, the panels'
 * own programs (uploads, disk faults, starting a server again), and those
 * added with addWorldProgramSetup.
 */
export function setupWorldPrograms(world: World): void {
  registerHostSetup(world);
  shellPartsNow()?.registerShellProgram(world);
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
