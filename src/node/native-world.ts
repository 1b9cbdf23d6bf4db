/**
 * The world a Node entry point runs its one process in: real time, one host
 * whose files are this machine's (the host's paths are this machine's paths)
 * and whose process ids start at this Node process's, so that the pid a
 * server or sentinel reports is the one the OS shows.
 */
import { randomInt } from 'node:crypto';
import { World } from '../../emulator/world/world.js';
import { nodePrograms } from './host-programs.js';
import { RealDisk } from './real-disk.js';
import type { ServerLog } from './server-log.js';
import type { RedisTcpServer } from './tcp-server.js';
import { WallClock } from './wall-clock.js';
import type { NodeWorldDriver } from './world-driver.js';

export interface NativeWorld {
  clock: WallClock;
  world: World;
  host: ReturnType<World['addHost']>;
}

export function nativeWorld(hostName: string): NativeWorld {
  const clock = new WallClock();
  const world = new World({ seed: randomInt(2 ** 31), startUs: clock.nowUs() });
  world.kernel.outsideNowUs = () => clock.nowUs();
  world.trace.commands = false;
  const host = world.addHost(hostName, 'native');
  host.disk = new RealDisk(world.kernel, hostName, '/');
  host.numberProcessesFrom(process.pid);
  host.programs = nodePrograms();
  return { clock, world, host };
}

/**
 * Binds the entry point's listening sockets. When that fails (the port is
 * taken, the address is not this machine's), the world stops and the reason
 * is logged as a warning, as Redis does before it exits with 1.
 */
export async function listenOrStop(tcp: RedisTcpServer, driver: NodeWorldDriver, log: ServerLog): Promise<boolean> {
  try {
    await tcp.start();
    return true;
  } catch (e) {
    driver.stop();
    log.warning((e as Error).message);
    return false;
  }
}
