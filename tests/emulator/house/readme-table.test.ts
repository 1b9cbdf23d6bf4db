import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
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

  it('names every subfolder of emulator/ and src/ in docs/architecture.md', () => {
    const below = (dir: string): string[] => folders(dir).flatMap((f) => [f, ...below(f.slice(0, -1))]);
    const subfolders = [...folders('emulator'), ...folders('src')].flatMap((f) => below(f.slice(0, -1)));
    const missing = subfolders.filter((f) => !architecture.includes(f.startsWith('emulator/') ? f.slice('emulator/'.length) : f));
    expect(missing).toEqual([]);
  });

  it('lists every module of the door in docs/architecture.md', () => {
    const rules = readFileSync(join(root, '.dependency-cruiser.cjs'), 'utf8');
    const door = /const DOOR = \[([^\]]*)\]/.exec(rules)![1]!;
    const modules = [...door.matchAll(/'([^']+)'/g)].map((m) => m[1]!);
    expect(modules.length).toBeGreaterThan(10);
    expect(modules.filter((m) => !architecture.includes(`\`${m}\``))).toEqual([]);
  });

  it('names no file or folder that is gone, in docs/architecture.md or the README table', () => {
    // A path is read from the root, from emulator/, or (in a README row) from the row's own folder.
    const gone = (text: string, base = ''): string[] =>
      [...text.matchAll(/`([^`\s]+)`/g)]
        .map((m) => m[1]!)
        .filter((p) => p.includes('/') && /(\.(ts|tsx|cjs|mjs|md)|\/)$/.test(p))
        .filter((p) => ![p, `emulator/${p}`, `${base}${p}`].some((c) => existsSync(join(root, c))));
    expect(gone(architecture)).toEqual([]);
    // The path of one command names its modules without backquotes.
    const path = /## The path of one command\n+```\n([^`]*)```/.exec(architecture)![1]!;
    const steps = [...path.matchAll(/[\w-]+\/[\w/-]+\.ts/g)].map((m) => m[0]);
    expect(steps.length).toBeGreaterThan(5);
    expect(steps.filter((p) => !existsSync(join(root, 'emulator', p)))).toEqual([]);
    const rows = readme.split('\n').filter((l) => l.startsWith('| `'));
    expect(rows.flatMap((row) => gone(row, /^\| `([^`]+\/)`/.exec(row)?.[1] ?? ''))).toEqual([]);
  });
});
