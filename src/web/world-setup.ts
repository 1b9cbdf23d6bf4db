import { installRedisHost } from '../../emulator/programs/index.js';
import { World } from '../../emulator/world/world.js';
import { installWorkbookPrograms } from './world-programs.js';

/** The machine that runs redis-server. */
export const SERVER_HOST = 'redis';
/** The machine the learner's clients run on. */
export const CLIENT_HOST = 'app';
export const SERVER_PORT = 6379;

/**
 * The sandbox's world: a Debian server "redis" with redis-server on 6379,
 * and a client machine "app" next to it on a link as fast as localhost
 * (the book's 0.015 ms), so commands feel local yet go through the
 * network like any client's. DEBUG is allowed from the server's own
 * machine (enable-debug-command local), so a learner can fill it with
 * DEBUG POPULATE from a shell there, as the book's large-dataset
 * experiments need.
 */
export function buildSandboxWorld(seed = 1): World {
  const world = new World({ seed });
  installWorkbookPrograms(world);
  world.addHost(SERVER_HOST, 'metal');
  installRedisHost(world, SERVER_HOST);
  world.startRedis(SERVER_HOST, { port: SERVER_PORT, config: { dir: '/var/lib/redis', 'enable-debug-command': 'local' } });
  world.addHost(CLIENT_HOST, 'metal');
  world.link(CLIENT_HOST, SERVER_HOST, 'localhost');
  return world;
}
