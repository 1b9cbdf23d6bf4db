import { describe, expect, it } from 'vitest';
import type { LineAssist } from '../../../src/web/terminal/line-assist.js';
import { editorOnScreen } from './editor-setup.js';

const TAB = '\t';
const ESC = '\x1b';

describe('Tab completion in a redis-cli terminal', () => {
  it('replaces the line with the first command it starts, in capitals, and cycles on each Tab', () => {
    const { editor, screen, type } = editorOnScreen();
    type('get', TAB);
    expect(editor.line).toBe('GET');
    expect(screen.text()[0]).toMatch(/^127\.0\.0\.1:6379> GET key$/);
    type(TAB, TAB);
    expect(editor.line).toBe('GETDEL');
  });

  it('comes back to the line as typed after the last choice, with a beep, and starts over', () => {
    const { editor, screen, type } = editorOnScreen();
    type('client no', TAB);
    expect(editor.line).toBe('CLIENT NO-EVICT');
    type(TAB);
    expect(editor.line).toBe('client no');
    expect(screen.bells).toBe(1);
    type(TAB);
    expect(editor.line).toBe('CLIENT NO-EVICT');
  });

  it('Escape goes back to the line as typed; another key keeps the choice and acts', () => {
    const a = editorOnScreen();
    a.type('config g', TAB, ESC);
    expect(a.editor.line).toBe('config g');
    const b = editorOnScreen();
    b.type('config g', TAB, ' maxmemory');
    expect(b.editor.line).toBe('CONFIG GET maxmemory');
    const c = editorOnScreen();
    c.type('config g', TAB, '\r');
    expect(c.events).toEqual([{ kind: 'submit', line: 'CONFIG GET' }]);
  });

  it('beeps when nothing completes', () => {
    const { editor, screen, type } = editorOnScreen();
    type('set k v', TAB);
    expect(editor.line).toBe('set k v');
    expect(screen.bells).toBe(1);
  });

  it('completes help topics after "help "', () => {
    const { editor, type } = editorOnScreen();
    type('help @so', TAB);
    expect(editor.line).toBe('help @sorted-set');
  });

  it('completes a parameter after CONFIG SET, then its value', () => {
    const { editor, type } = editorOnScreen();
    type('CONFIG SET appendfs', TAB, ' ev', TAB);
    expect(editor.line).toBe('CONFIG SET appendfsync everysec');
  });

  it('says it wants Tab only when there is something to complete', () => {
    const { editor, type } = editorOnScreen();
    expect(editor.wantsTab).toBe(false);
    type('G');
    expect(editor.wantsTab).toBe(true);
  });
});

describe('Tab completion in a shell', () => {
  const files: Record<string, string[]> = { '/': ['etc', 'var'], '/var/lib/redis': ['dump.rdb', 'appendonlydir', 'redis.conf'] };
  const assist: LineAssist = {
    complete(line, cursor) {
      const start = line.lastIndexOf(' ', cursor - 1) + 1;
      const word = line.slice(start, cursor);
      const slash = word.lastIndexOf('/');
      const names = files[word.slice(0, slash) || '/'] ?? [];
      const matches = names
        .filter((n) => n.startsWith(word.slice(slash + 1)))
        .map((n) => ({ text: word.slice(0, slash + 1) + n + (n.includes('.') ? '' : '/'), display: n, final: n.includes('.') }));
      return { kind: 'word', start, matches };
    },
    hint: () => null,
  };

  it('completes a unique name, with a blank after a file and none after a directory', () => {
    const a = editorOnScreen({ assist, prompt: '# ' });
    a.type('cat /var/lib/redis/du', TAB);
    expect(a.editor.line).toBe('cat /var/lib/redis/dump.rdb ');
    const b = editorOnScreen({ assist, prompt: '# ' });
    b.type('ls /v', TAB);
    expect(b.editor.line).toBe('ls /var/');
  });

  it('completes as far as the choices agree, then lists them on a second Tab and draws the line again', () => {
    const { editor, screen, type } = editorOnScreen({ assist, prompt: '# ', cols: 40 });
    type('ls /var/lib/redis/', TAB);
    expect(editor.line).toBe('ls /var/lib/redis/');
    expect(screen.bells).toBe(1);
    type(TAB);
    // Columns 15 wide, down then across, as bash lays them out.
    expect(screen.text()).toEqual(['# ls /var/lib/redis/', 'dump.rdb       redis.conf', 'appendonlydir', '# ls /var/lib/redis/']);
    type('r', TAB);
    expect(editor.line).toBe('ls /var/lib/redis/redis.conf ');
  });

  it('keeps the text after the cursor', () => {
    const { editor, type } = editorOnScreen({ assist, prompt: '# ' });
    type('cat /var/lib/redis/du > x', '\x1b[D'.repeat(4), TAB);
    expect(editor.line).toBe('cat /var/lib/redis/dump.rdb  > x');
  });

  it('never puts a name with control characters into the line', () => {
    const evil: LineAssist = { complete: () => ({ kind: 'word', start: 0, matches: [{ text: 'a\x1b[2Jb', display: 'a', final: true }] }), hint: () => null };
    const { editor, screen, type } = editorOnScreen({ assist: evil, prompt: '# ' });
    type('a', TAB);
    expect(editor.line).toBe('a');
    expect(screen.bells).toBe(1);
  });
});
