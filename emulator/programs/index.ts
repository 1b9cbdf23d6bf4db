/**
 * A front of the door: what the page's first load needs of the programs on
 * a host: installing redis-server on a host (its redis.conf and data
 * directory), the link a terminal session talks through, and the name
 * under which the world records a shell's actions. The shell itself and
 * what it runs load on demand, through shell-parts.ts.
 */
export { REDIS_CONF, installRedisHost, registerHostSetup } from './host-setup.js';
export { SessionLink } from './session-link.js';
export { SHELL_PROGRAM } from './shell/action.js';
export type { HostShell, RedisCliTarget } from './shell.js';
