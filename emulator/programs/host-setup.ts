import type { Host } from '../sim/host.js';
import type { World } from '../world/world.js';

/**
 * What a freshly installed Debian server with the redis-server package has
 * on its disk, as far as the workbook needs it: root's home, /tmp, the
 * package's configuration file and its data and log directories. The files
 * are synced, as an installed system's are. The installation is an action
 * of the world's log, so a restored world has it too.
 *
 *   world.addHost('redis');
 *   installRedisHost(world, 'redis');
 *   world.startRedis('redis', { config: { dir: '/var/lib/redis' } });
 */
export const REDIS_CONF = `# Redis configuration file (a short one).
#
# redis-server reads it as Redis 7.0 does: one directive per line, its
# arguments separated by spaces, "quoted" or 'quoted' when they hold some.
# Start a server with it:  redis-server /etc/redis/redis.conf --port 6380

port 6379
daemonize yes
loglevel notice
databases 16

# Snapshotting: "save <seconds> <changes>" writes a snapshot once that many
# changes were made and that many seconds passed since the last one; several
# pairs are several rules, and save "" turns snapshots off.
save 3600 1 300 100 60 10000
dbfilename dump.rdb
dir /var/lib/redis

appendonly no
appendfilename "appendonly.aof"
appendfsync everysec
`;

const PROGRAM = 'install-redis-host';
const registered = new WeakSet<World>();

/** Lets a world replay installations (World.restore's setup). */
export function registerHostSetup(world: World): void {
  if (registered.has(world)) return;
  registered.add(world);
  world.registerProgram(PROGRAM, (w, args) => install(w.host((args as { host: string }).host)));
}

export function installRedisHost(world: World, hostName: string): void {
  registerHostSetup(world);
  world.apply({ kind: 'program', name: PROGRAM, args: { host: hostName } });
}

function install(host: Host): void {
  const disk = host.disk;
  for (const dir of ['/root', '/tmp', '/etc/redis', '/var/lib/redis', '/var/log/redis']) disk.mkdir(dir, { recursive: true });
  const conf = new Uint8Array(REDIS_CONF.length);
  for (let i = 0; i < REDIS_CONF.length; i++) conf[i] = REDIS_CONF.charCodeAt(i);
  disk.writeFile('/etc/redis/redis.conf', conf);
  // The installation ends synced: the file and the directory tree are
  // durable once the device completes this flush.
  const fd = disk.open('/etc/redis/redis.conf', 'r');
  disk.fsync(fd, () => disk.close(fd));
}
