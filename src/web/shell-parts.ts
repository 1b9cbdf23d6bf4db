/**
 * The host shell and its programs (ls, cat, hexdump, scp, redis-server,
 * redis-check-aof, redis-benchmark, sim ...), with the terminal program
 * that runs it. The page loads them on first need (shell-loader.ts): a
 * learner who only types into redis-cli never downloads them.
 */
// Every command's code, also those kept apart (emulator/commands/on-demand.ts).
import '../../emulator/commands/on-demand-handlers.js';
export { HostShell, registerShellProgram, startRedisFromCommandLine } from '../../emulator/programs/shell-parts.js';
export { ShellProgram } from './terminal/shell-program.js';
