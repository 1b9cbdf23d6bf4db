import { registerShellProgram } from '../../../emulator/programs/shell.js';
import type { World } from '../../../emulator/sim/world.js';
import { installWorkbookPrograms } from '../world-programs.js';

/**
 * Registers on a world every program the page's recorded actions can
 * name, so that a world restored from a checkpoint replays them: the host
 * shell (with the Redis host installation it uses) and the panels' own
 * programs (uploads, disk faults, starting a server again).
 */
export function setupWorldPrograms(world: World): void {
  registerShellProgram(world);
  installWorkbookPrograms(world);
}
