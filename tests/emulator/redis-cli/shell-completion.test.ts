import { describe, expect, it } from 'vitest';
import { shellCompletion, type DirEntry, type ShellView } from '../../../emulator/redis-cli/shell-completion.js';

const TREE: Record<string, DirEntry[]> = {
  '/': [
    { name: 'etc', directory: true },
    { name: 'root', directory: true },
    { name: 'var', directory: true },
  ],
  '/var/lib/redis': [
    { name: 'appendonlydir', directory: true },
    { name: 'dump.rdb', directory: false },
    { name: 'my file', directory: false },
    { name: '.hidden', directory: false },
  ],
  '/root': [{ name: 'notes.txt', directory: false }],
};

const view: ShellView = {
  cwd: '/var/lib/redis',
  home: '/root',
  programs: ['cat', 'cd', 'cp', 'ls', 'redis-check-aof', 'redis-check-rdb', 'redis-cli', 'sim'],
  list: (path) => TREE[path.replace(/\/+$/, '').replace(/^$/, '/')] ?? TREE[path] ?? null,
  verbs: (program) => (program === 'sim' ? ['partition', 'power-loss', 'power-on'] : null),
};

const texts = (line: string, cursor = line.length): string[] => shellCompletion(line, cursor, view).matches.map((m) => m.text);

describe('shell Tab completion', () => {
  it('completes command names in a command position', () => {
    expect(texts('redis-check')).toEqual(['redis-check-aof', 'redis-check-rdb']);
    expect(texts('ls; c')).toEqual(['cat', 'cd', 'cp']);
    expect(shellCompletion('ls | ca', 7, view)).toEqual({ start: 5, matches: [{ text: 'cat', display: 'cat', final: true }] });
  });

  it('completes file names relative to the working directory, and absolute paths', () => {
    expect(texts('cat d')).toEqual(['dump.rdb']);
    expect(texts('ls /v')).toEqual(['/var/']);
    expect(shellCompletion('ls a', 4, view).matches).toEqual([{ text: 'appendonlydir/', display: 'appendonlydir/', final: false }]);
  });

  it('escapes blanks in names, and finds them when typed escaped', () => {
    expect(texts('cat my')).toEqual(['my\\ file']);
    expect(texts('cat my\\ f')).toEqual(['my\\ file']);
  });

  it('shows hidden files only for a word that starts with a dot', () => {
    expect(texts('cat ')).toEqual(['appendonlydir/', 'dump.rdb', 'my\\ file']);
    expect(texts('cat .')).toEqual(['.hidden']);
  });

  it('completes under ~ from the home directory, and only directories after cd', () => {
    expect(texts('cat ~/n')).toEqual(['~/notes.txt']);
    expect(texts('cd ')).toEqual(['appendonlydir/']);
  });

  it("completes sim's verbs", () => {
    expect(texts('sim power-')).toEqual(['power-loss', 'power-on']);
  });

  it('offers nothing inside quotes or for a directory that cannot be read', () => {
    expect(texts('cat "d')).toEqual([]);
    expect(texts('cat /nowhere/x')).toEqual([]);
  });
});
