import { spawnSync } from 'node:child_process';
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
