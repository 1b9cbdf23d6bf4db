import { describe, expect, it } from 'vitest';
import { splitArgs } from '../../../emulator/resp/split-args.js';
import { parseLesson } from '../../../src/lessons/parse.js';
import { cliLine, DRAFT_FILE, lessonDraft } from '../../../src/web/session/lesson-draft.js';
import { sessionHarness } from './session-harness.js';

describe('a sandbox session as a lesson draft', () => {
  it('writes the world and one step per group of commands typed, and the lessons validator accepts it', async () => {
    const h = sessionHarness();
    const cli = h.open();
    await h.run(50);
    h.store.sendLine(cli.id, 'SET greeting "Hello, Redis"');
    h.store.sendLine(cli.id, 'INCR visits');
    await h.run(100);
    const shell = h.open({ kind: 'shell', host: 'redis' });
    await h.run(50);
    h.store.sendLine(shell.id, 'ls /var/lib/redis');
    h.store.sendLine(shell.id, 'redis-cli BGSAVE');
    await h.run(200);
    h.store.sendLine(cli.id, 'GET greeting');
    await h.run(100);

    const world = h.store.world;
    const draft = lessonDraft(world.actionsFrom(0), world.kernel.seed)!;
    const lesson = parseLesson(draft, DRAFT_FILE);
    expect(lesson.meta.world.hosts.map((x) => x.name)).toEqual(['redis', 'app']);
    expect(lesson.meta.world.servers.map((s) => [s.host, s.port, s.config])).toEqual([['redis', 6379, { 'enable-debug-command': 'local' }]]);
    expect(lesson.meta.world.terminals.map((t) => [t.name, t.kind])).toEqual([
      ['redis-cli', 'redis-cli'],
      ['shell-redis', 'shell'],
    ]);
    expect(lesson.steps.map((s) => s.solution.map((e) => (e.kind === 'line' ? `${e.terminal}> ${e.line}` : e.kind)))).toEqual([
      ['redis-cli> SET greeting "Hello, Redis"', 'redis-cli> INCR visits'],
      ['shell-redis> ls /var/lib/redis', 'shell-redis> redis-cli BGSAVE'],
      ['redis-cli> GET greeting'],
    ]);
    expect(lesson.steps.map((s) => s.checks.map((c) => c.kind))).toEqual([['command', 'command'], ['ran'], ['command']]);
  });

  it('says nothing when nothing was typed', () => {
    const h = sessionHarness();
    expect(lessonDraft(h.store.world.actionsFrom(0), 1)).toBeNull();
  });

  it('writes each command as a line that splits back into the same arguments', () => {
    for (const argv of [['SET', 'a b', ''], ['SET', 'k', 'say "hi"\\\n\t\x01'], ['SET', 'k', '\xe9\xff']]) {
      expect(splitArgs(cliLine(argv))).toEqual(argv);
    }
  });
});
