import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
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

  it('catch a cycle between folders of emulator/ or src/, and between subfolders of one folder', async () => {
    // A tree of nothing but cycles, judged by the project's own rules.
    const dir = mkdtempSync(join(tmpdir(), 'house-cycles-'));
    try {
      const pair = (a: string, b: string) => {
        for (const [from, to] of [[a, b], [b, a]] as const) {
          mkdirSync(join(dir, dirname(from)), { recursive: true });
          const target = relative(dirname(from), to);
          writeFileSync(join(dir, from), `import { f } from '${target}';\nexport const g = () => f;\nexport const f = 1;\n`);
        }
      };
      pair('src/alpha/a.js', 'src/beta/b.js');
      pair('src/web/one/a.js', 'src/web/two/b.js');
      pair('emulator/persistence/rdb/a.js', 'emulator/persistence/check/b.js');
      writeFileSync(join(dir, 'tsconfig.json'), '{"compilerOptions":{"allowJs":true}}');
      writeFileSync(join(dir, 'rules.cjs'), `module.exports = require(${JSON.stringify(join(root, '.dependency-cruiser.cjs'))});`);
      const run = promisify(execFile);
      const output = await run(bin, ['emulator', 'src', '--config', 'rules.cjs', '--output-type', 'err'], { cwd: dir }).then(
        (r) => r.stdout,
        (e: { stdout?: string }) => e.stdout ?? '',
      );
      // Each cycle is reported once, from either of its modules: named here by the folder that holds both.
      const cycles = (rule: string, depth: number) =>
        output
          .split('\n')
          .filter((l) => l.includes(`error ${rule}:`))
          .map((l) => l.split(': ')[1]!.trim().split('/').slice(0, depth).join('/'))
          .sort();
      expect(cycles('no-folder-cycle', 1)).toEqual(['src']);
      expect(cycles('no-subfolder-cycle', 2)).toEqual(['emulator/persistence', 'src/web']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);
});
