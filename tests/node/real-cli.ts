/**
 * The real redis-cli, for comparing our terminal's output with it. Like the
 * reference server it is required in CI and optional on a developer's
 * machine, where the tests that need it skip with a notice.
 */
import { spawnSync } from 'node:child_process';
import { REAL_REDIS_REQUIRED } from '../differential/availability.js';
import { realRedisVersion } from '../support/real-redis.js';

export const REDIS_CLI_BIN = process.env.REDIS_CLI_BIN ?? 'redis-cli';

function realCliVersion(): string | null {
  const r = spawnSync(REDIS_CLI_BIN, ['--version'], { encoding: 'utf8' });
  if (r.status !== 0) return null;
  const m = /redis-cli (\d+\.\d+\.\d+)/.exec(r.stdout);
  return m ? m[1]! : null;
}

export const HAVE_REAL_CLI = realCliVersion() !== null && realRedisVersion() !== null;

if (!HAVE_REAL_CLI && REAL_REDIS_REQUIRED) {
  throw new Error('redis-server and redis-cli are required here (CI) but were not found: apt-get install redis-server redis-tools');
}

export function cliSkipNotice(): string {
  return 'SKIPPED: redis-server or redis-cli 7.0 not found (install Debian\'s redis-server and redis-tools)';
}

export interface CliRun {
  /** Standard output as a byte string. */
  stdout: string;
  stderr: string;
  status: number | null;
}

/** Runs redis-cli with the given arguments (and optional standard input). */
export function runRealCli(args: readonly string[], input?: string): CliRun {
  const r = spawnSync(REDIS_CLI_BIN, args, {
    input: input === undefined ? undefined : Buffer.from(input, 'latin1'),
    timeout: 20_000,
  });
  return { stdout: r.stdout.toString('latin1'), stderr: r.stderr.toString('latin1'), status: r.status };
}
