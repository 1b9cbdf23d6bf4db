/**
 * Memory for 1,000,000 keys "key:N" with 10-byte values: the emulator's JS
 * heap growth (in a child process with --expose-gc) beside a real
 * redis-server's used_memory growth for the same data (DEBUG POPULATE).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startRealRedis, RawConnection } from '../tests/support/real-redis.js';
import type { Row } from './measure.js';

const KEYS = 1_000_000;

async function realUsedMemory(): Promise<number> {
  const real = await startRealRedis();
  try {
    const c = await RawConnection.open(real.port);
    const used = async () => Number(/used_memory:(\d+)/.exec(String(await c.command(['INFO', 'memory'])))![1]);
    const before = await used();
    await c.command(['DEBUG', 'POPULATE', String(KEYS), 'key', '10']);
    const after = await used();
    c.close();
    return after - before;
  } finally {
    await real.stop();
  }
}

function emulatorHeapGrowth(): number {
  const child = fileURLToPath(new URL('./memory-child.ts', import.meta.url));
  const r = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', child, String(KEYS)], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error('memory child failed: ' + r.stderr);
  return Number(/heapGrowth=(\d+)/.exec(r.stdout)![1]);
}

export async function benchMemory(): Promise<Row[]> {
  const real = await realUsedMemory();
  const emu = emulatorHeapGrowth();
  return [{ name: `${KEYS} keys`, emulator: emu, reference: real, unit: 'bytes', referenceName: 'redis-server used_memory', lowerIsBetter: true, goal: 1.2 }];
}
