import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// npm run book runs the scenarios outside the test suite, without its setup
// file: every command the benchmark sends must still find its code.
const root = join(import.meta.dirname, '..', '..', '..');

describe('the book figures outside the test suite', () => {
  it('measure every line of listing 4.10', async () => {
    const script = `import { listing410 } from './emulator/scenarios/book-figures.ts';
      for (const f of listing410({ requests: 200 }).figures) console.log(f.row, f.sim);`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root });
    const rows = stdout.trim().split('\n').map((l) => l.split(' '));
    expect(rows.length).toBe(15);
    expect(rows.filter(([, sim]) => !(Number(sim) > 0)).map(([row]) => row)).toEqual([]);
  }, 120_000);
});
