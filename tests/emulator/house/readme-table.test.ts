import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

// The README's "What is here" table and docs/architecture.md describe the
// tree; a folder added or renamed without them would leave readers a map of
// a house that is not there.
const root = join(import.meta.dirname, '..', '..', '..');
const folders = (dir: string): string[] =>
  readdirSync(join(root, dir), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => `${dir}/${e.name}/`);

describe('the map of the tree', () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const architecture = readFileSync(join(root, 'docs', 'architecture.md'), 'utf8');

  it('names every folder of emulator/ and src/ in the README table', () => {
    const rows = new Set([...readme.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]));
    const missing = [...folders('emulator'), ...folders('src')].filter((f) => !rows.has(f));
    expect(missing).toEqual([]);
    const gone = [...rows].filter((r) => r.endsWith('/') && r.split('/').length > 2)
      .filter((r) => !folders(r.split('/')[0]!).includes(r));
    expect(gone).toEqual([]);
  });

  it('places every folder of emulator/ in the layers of docs/architecture.md', () => {
    const missing = folders('emulator').map((f) => f.slice('emulator/'.length))
      .filter((name) => !new RegExp(`^  ${name.replace(/[.]/g, '\\.')}\\s`, 'm').test(architecture));
    expect(missing).toEqual([]);
  });
});
