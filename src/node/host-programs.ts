/**
 * The programs of this machine, for a host that stands for it: Sentinel's
 * notification and client-reconfig scripts run as real child processes,
 * started the way sentinelRunPendingScripts does (fork, then execve of the
 * path with the event's arguments and this process's environment).
 */
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { resolve } from 'node:path';
import { constants as osConstants } from 'node:os';
import type { HostPrograms } from '../../emulator/sim/host.js';

export function nodePrograms(): HostPrograms {
  return {
    executable(path, cwd) {
      try {
        accessSync(resolve(cwd, path), constants.X_OK);
        return true;
      } catch {
        return false;
      }
    },
    run(path, argv, cwd, exited) {
      // execve takes a relative path from the working directory; the script sees argv[0] as given.
      const child = spawn(resolve(cwd, path), argv.slice(1), { cwd, argv0: argv[0], stdio: 'inherit' });
      // 'exit' may follow 'error' or not: the end is told once.
      let ended = false;
      const end = (code: number, signal: number): void => {
        if (ended) return;
        ended = true;
        exited(code, signal);
      };
      // execve failed: Redis's child then exits with 2, which is not retried.
      child.once('error', () => end(2, 0));
      child.once('exit', (code, signal) => end(code ?? 0, signal === null ? 0 : (osConstants.signals[signal] ?? 0)));
      return { pid: child.pid ?? 0, kill: () => void child.kill('SIGKILL') };
    },
  };
}
