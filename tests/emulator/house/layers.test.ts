import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// The layers of .dependency-cruiser.cjs, held in the test suite as well as in
// npm run lint, so that a clean checkout's CI run judges them too: no folder of
// emulator/ imports one above it, no value-import cycle between folders,
// emulator/ imports neither src/ nor Node nor the page's libraries, and src/
// comes in only through the door.
const root = join(import.meta.dirname, '..', '..', '..');
const bin = join(root, 'node_modules', '.bin', 'depcruise');

describe('the layers of the house', () => {
  it('are held: dependency-cruiser finds no violation', async () => {
    expect(existsSync(bin), 'dependency-cruiser is installed (npm ci)').toBe(true);
    const run = promisify(execFile);
    let output: string;
    try {
      ({ stdout: output } = await run(bin, ['emulator', 'src', '--config', '.dependency-cruiser.cjs', '--output-type', 'err'], { cwd: root, maxBuffer: 16 << 20 }));
    } catch (e) {
      const failed = e as { stdout?: string; stderr?: string };
      throw new Error(`dependency-cruiser found violations:\n${failed.stdout ?? ''}${failed.stderr ?? ''}`, { cause: e });
    }
    expect(output).toMatch(/no dependency violations found/);
  }, 240_000);
});
