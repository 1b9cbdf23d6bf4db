/**
 * Redis's own Tcl units, run as Redis runs them on its own build: the
 * harness starts and kills servers itself from src/redis-server, here the
 * emulator's Node bundle, and the same units with the real redis-server.
 * A fixed, fast subset runs here (scripts/tcl-native.sh CI_UNITS); every
 * unit runs with `scripts/tcl-suite.sh native all`. Without tclsh or the
 * Redis 7.0.15 source tree (REDIS_SRC) it skips, and says so.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HAVE_REAL_REDIS } from '../differential/availability.js';

const ROOT = join(import.meta.dirname, '..', '..');

function redisSource(): string | null {
  const candidates = [process.env.REDIS_SRC, join(ROOT, '..', 'redis-7.0.15'), join(ROOT, '..', '..', 'redis-7.0.15')];
  return candidates.find((c) => c !== undefined && existsSync(join(c, 'tests', 'test_helper.tcl'))) ?? null;
}

const SOURCE = redisSource();
const HAVE_TCLSH = spawnSync('sh', ['-c', 'command -v tclsh'], { encoding: 'utf8' }).status === 0;
const RUNS = SOURCE !== null && HAVE_TCLSH && HAVE_REAL_REDIS;

if (!RUNS) {
  console.warn(
    `SKIPPED: Redis's Tcl units in native mode need tclsh (Debian package tcl), the Redis 7.0.15 source tree ` +
      `(REDIS_SRC) and redis-server; missing: ${[!HAVE_TCLSH && 'tclsh', SOURCE === null && 'source tree', !HAVE_REAL_REDIS && 'redis-server'].filter(Boolean).join(', ')}`,
  );
}

interface Counts {
  ok: number;
  err: number;
  aborted: boolean;
}

/** One side of a line of the script's table: "ok=5 err=0 skip=0 [aborted]". */
function counts(cell: string): Counts {
  const m = /ok=(\d+) err=(\d+) skip=\d+( aborted)?/.exec(cell);
  if (m === null) throw new Error(`not a result: ${cell}`);
  return { ok: Number(m[1]), err: Number(m[2]), aborted: m[3] !== undefined };
}

function run(args: string[], env: Record<string, string>): Promise<{ status: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [join(ROOT, 'scripts', 'tcl-suite.sh'), ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, out }));
  });
}

describe.skipIf(!RUNS)("Redis's Tcl units with the emulator as src/redis-server", () => {
  it('pass every test the real server passes in the same harness', async () => {
    const { status, out } = await run(['native', 'ci'], { REDIS_SRC: SOURCE ?? '', TCL_SCRATCH: join(ROOT, '.tmp', 'tcl-native-ci') });
    const rows = out.split('\n').filter((l) => l.startsWith('integration/'));
    expect(rows.length, out).toBeGreaterThan(0);
    for (const row of rows) {
      const [unit, emulatorCell, realCell] = row.split(/ {2,}/);
      const emulator = counts(emulatorCell!);
      const real = counts(realCell!);
      expect(real.ok, `${unit}: the real server passes tests\n${out}`).toBeGreaterThan(0);
      // At least as many passes: the real server's own run can fail a test on a loaded machine (its fake
      // cluster nodes for redis-cli's ASK redirect test did not start within 2.5 s once), which the
      // emulator passing is no fault of.
      expect({ unit, aborted: emulator.aborted }, out).toEqual({ unit, aborted: false });
      expect(emulator.ok, `${unit}: passes beside the real server's ${real.ok}\n${out}`).toBeGreaterThanOrEqual(real.ok);
      expect(emulator.err, `${unit}\n${out}`).toBeLessThanOrEqual(real.err);
    }
    expect(status, out).toBe(0);
  }, 600_000);
});
