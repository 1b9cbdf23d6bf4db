/**
 * A front of the door: the host shell and the programs it runs, which the
 * page loads on demand (src/web/shell-parts.ts imports this module
 * dynamically) and the lessons and Node programs import at start: the
 * shell, its command and verb names for completion, quoting, starting
 * redis-server from a command line, and the file checkers (redis-check-rdb,
 * redis-check-aof) whose verdicts the lessons read. Nothing in the page's
 * first load may import it.
 */
export { HostShell, registerShellProgram, shellCommandNames, type RedisCliTarget } from './shell.js';
export { shellQuote } from './shell/quoting.js';
export { startRedisFromCommandLine } from './shell/redis-server.js';
export { loadSentinelCode } from './shell/redis-sentinel.js';
export { simVerbNames } from './shell/sim-verbs.js';
export { runRedisCheckAof } from './redis-check-aof.js';
export { checkRdb } from '../persistence/check/rdb/check.js';
export { shellCompletion, type DirEntry, type ShellView } from '../redis-cli/shell-completion.js';
