import { registerShellProgram } from '../../../emulator/programs/shell.js';
import type { World } from '../../../emulator/sim/world.js';

/**
 * Registers on a world every program the page's recorded actions can
 * name, so that a world restored from a checkpoint replays them: the host
 * shell (with the Redis host installation it uses).
 */
export function setupWorldPrograms(world: World): void {
  registerShellProgram(world);
}
