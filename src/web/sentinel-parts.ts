/**
 * Sentinel for the page's worlds: redis-sentinel as a daemon of the hosts
 * and the clients that follow a failover. Loaded on first need
 * (sentinel-loader.ts), never with the page's first chunk.
 */
import { registerSentinel } from '../../emulator/sentinel/index.js';
import { registerSentinelClients } from '../../emulator/world/sentinel-client.js';
import type { World } from '../../emulator/world/world.js';

/** Makes `world` able to start redis-sentinel and open Sentinel clients; again does nothing new. */
export function registerSentinelParts(world: World): void {
  registerSentinel(world);
  if (!world.sentinelClientsRegistered) registerSentinelClients(world);
}
