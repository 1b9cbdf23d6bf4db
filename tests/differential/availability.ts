/**
 * Whether the reference server is here. In CI (CI=true or
 * REQUIRE_REAL_REDIS=1) it must be; on a developer's machine without it the
 * differential tests skip, and say so loudly.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { RawConnection, realRedisVersion } from '../support/real-redis.js';
import { waitFor } from '../support/wait-for.js';

export const REAL_REDIS_VERSION = realRedisVersion();
export const REAL_REDIS_REQUIRED = process.env.CI === 'true' || process.env.REQUIRE_REAL_REDIS === '1';
export const HAVE_REAL_REDIS = REAL_REDIS_VERSION !== null;

export function skipNotice(): string {
  return `SKIPPED: redis-server 7.0 not found (install Debian's redis-server to run the differential tests)`;
}

/** Debian's redis-sentinel, for the tests that run it beside the emulator's Sentinel. */
export const SENTINEL_BIN = process.env.REDIS_SENTINEL_BIN ?? 'redis-sentinel';
export const HAVE_REAL_SENTINEL = spawnSync(SENTINEL_BIN, ['--version'], { encoding: 'utf8' }).status === 0;

/** Whether a file that needs both real binaries runs; when it does not, it says why, loudly. */
export function sentinelTestsRun(what: string): boolean {
  const run = HAVE_REAL_REDIS && HAVE_REAL_SENTINEL;
  if (!run) console.warn(`\n!!! ${what}: ${HAVE_REAL_REDIS ? 'SKIPPED: redis-sentinel 7.0 not found' : skipNotice()}\n`);
  return run;
}

/**
 * Starts a sentinel on a config file: Debian's redis-sentinel, or the
 * emulator's (`npm run server -- <conf> --sentinel`, from the repository).
 */
export function spawnSentinel(kind: 'real' | 'emulator', conf: string): ChildProcess {
  return kind === 'emulator'
    ? spawn(process.execPath, ['scripts/server.mjs', conf, '--sentinel'], { cwd: fileURLToPath(new URL('../..', import.meta.url)), stdio: 'ignore' })
    : spawn(SENTINEL_BIN, [conf], { stdio: 'ignore' });
}

/** A connection to the sentinel on `port` once it answers PING. */
export function sentinelConnection(what: string, port: number): Promise<RawConnection> {
  return waitFor(what, async () => {
    const c = await RawConnection.open(port);
    if ((await c.commandRaw(['PING'])) === '+PONG\r\n') return c;
    c.close();
    return undefined;
  });
}
