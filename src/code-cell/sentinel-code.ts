import type { World } from '../../emulator/world/world.js';
import type { CellRequest } from './protocol.js';

let code: Promise<typeof import('../../emulator/world/sentinel-client.js')> | null = null;

/**
 * What to wait for before `requests` can be carried out: null when none
 * opens a Sentinel client or the world can already open one; else the
 * load of the client's code (not part of what a first page loads), after
 * which the world can. A load that fails lets the requests go on: the
 * open then fails and the cell's commands on it say why.
 */
export function sentinelCodeFor(world: World, requests: readonly CellRequest[]): Promise<void> | null {
  if (world.sentinelClientsRegistered || !requests.some((r) => r.op === 'open' && r.sentinels !== undefined)) return null;
  code ??= import('../../emulator/world/sentinel-client.js');
  return code.then(
    (m) => m.registerSentinelClients(world),
    () => undefined,
  );
}
