import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

// `npm run server` runs the bundle scripts/node-bundle.mjs builds (once, then
// only when a source changed): it must start the same server tsx does.
test('npm run server runs the bundled server, built on demand', () => {
  const r = spawnSync(process.execPath, ['scripts/server.mjs', '--version'], { cwd: ROOT, encoding: 'utf8' });
  expect(r.stderr).toBe('');
  expect(r.stdout).toMatch(/^Redis server v=7\.0\.15 sha=00000000:0 malloc=libc bits=64 build=[0-9a-f]+\n$/);
  expect(r.status).toBe(0);
});

// `npm run server` starts through V8's code cache (runCached): a cache is
// offered to V8 only for the exact text it was made from, since V8 itself
// compares no more than the source's length.
test('a bundle loads through the code cache made from its own text, and never through one made from another text', async () => {
  const { loadWithCodeCache } = await import('../../scripts/node-bundle.mjs');
  const dir = mkdtempSync(join(tmpdir(), 'code-cache-'));
  try {
    const file = join(dir, 'program.cjs');
    writeFileSync(file, 'exports.main = function () { return [1, 2, 3].map((x) => x * 2).join(" "); };\n');
    const first = loadWithCodeCache(file);
    expect(first.cache).toBe('none');
    expect((first.exports.main as () => string)()).toBe('2 4 6');
    first.keepCache();
    const second = loadWithCodeCache(file);
    expect(second.cache).toBe('used');
    expect((second.exports.main as () => string)()).toBe('2 4 6');
    // Another text of the same length: its cache is not the one kept.
    writeFileSync(file, 'exports.main = function () { return [1, 2, 3].map((x) => x * 3).join(" "); };\n');
    const changed = loadWithCodeCache(file);
    expect(changed.cache).toBe('none');
    expect((changed.exports.main as () => string)()).toBe('3 6 9');
    changed.keepCache();
    expect(loadWithCodeCache(file).cache).toBe('used');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
