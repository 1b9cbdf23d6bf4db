import { describe, expect, it } from 'vitest';
import { HeadlessLessonHost } from '../../src/lessons/headless.js';
import { LessonRunner } from '../../src/lessons/runner.js';
import { loadLesson } from './lesson-files.js';
import { parseLesson } from '../../src/lessons/parse.js';

const lesson = loadLesson('05-append-only-file.md');

describe('the lesson runner', () => {
  it('keeps progress as JSON: the step, the steps done, the hints and solutions shown', async () => {
    const runner = new LessonRunner(lesson, new HeadlessLessonHost());
    runner.start();
    expect(runner.progress()).toMatchObject({ version: 1, lesson: 'append-only-file', step: 0, done: [false, false, false, false, false, false, false] });
    await runner.playSolution();
    expect(runner.progress().done[0]).toBe(true);
    runner.next();
    expect(runner.showHint()).toBe(1);
    expect(runner.showHint()).toBe(1);
    runner.revealSolution();
    const p = runner.progress();
    expect(p).toMatchObject({ step: 1, done: [true, false, false, false, false, false, false], hints: [0, 1, 0, 0, 0, 0, 0], solution: [false, true, false, false, false, false, false] });
    expect(JSON.parse(JSON.stringify(p))).toEqual(p);
  });

  it('takes saved progress back over a world restored from its checkpoint', async () => {
    const host = new HeadlessLessonHost();
    const runner = new LessonRunner(lesson, host);
    runner.start();
    await runner.playSolution();
    runner.next();
    await runner.playSolution();
    const saved = JSON.parse(JSON.stringify(runner.progress())) as unknown;

    const again = new LessonRunner(lesson, host);
    again.restoreProgress(saved);
    expect(again.current).toBe(1);
    expect(again.evaluate().passing).toBe(true);
    expect(again.progress()).toEqual(saved);
  });

  it("refuses another lesson's progress, or one that does not fit", () => {
    const runner = new LessonRunner(lesson, new HeadlessLessonHost());
    runner.start();
    const p = runner.progress();
    expect(() => runner.restoreProgress({ ...p, lesson: 'snapshots' })).toThrow('the progress is for lesson snapshots, not append-only-file');
    expect(() => runner.restoreProgress({ ...p, done: [true] })).toThrow('does not fit');
    expect(() => runner.restoreProgress({ version: 2 })).toThrow();
  });

  it('starts over with a fresh world and no progress', async () => {
    const host = new HeadlessLessonHost();
    const runner = new LessonRunner(lesson, host);
    runner.start();
    const first = host.world;
    await runner.playSolution();
    runner.next();
    runner.reset();
    expect(host.world).not.toBe(first);
    expect(runner.progress()).toMatchObject({ step: 0, done: [false, false, false, false, false, false, false] });
    expect(runner.evaluate().passing).toBe(false);
  });

  it('tells its listeners when a step is done', async () => {
    const runner = new LessonRunner(lesson, new HeadlessLessonHost());
    runner.start();
    const seen: boolean[] = [];
    runner.subscribe(() => seen.push(runner.progress().done[0]!));
    await runner.runLines('redis', ['CONFIG GET appendfsync']);
    expect(seen).toContain(true);
  });

  it('plays stop then start back to back: the start waits until the stopped server is gone', async () => {
    const host = new HeadlessLessonHost();
    const snapshots = new LessonRunner(loadLesson('02-snapshots.md'), host);
    snapshots.start();
    const before = host.world.redis('A')!.pid;
    const out = await snapshots.playEvents(['stop A', 'start A']);
    const after = host.world.redis('A');
    expect(out).not.toContain('Address already in use');
    expect(after).toBeDefined();
    expect(after!.pid).not.toBe(before);
    expect(after!.alive).toBe(true);
  });
});

describe('a terminal printing a stream', () => {
  const streaming = parseLesson(
    `---
id: monitor-stream
number: 99
section: ""
title: A stream
summary: MONITOR, then more lines in the same terminal.
world:
  seed: 99
  hosts:
    - { name: A }
    - { name: app }
  servers:
    - { host: A, config: { save: "" } }
  terminals:
    - { name: watch, kind: redis-cli, from: app, server: A }
    - { name: redis, kind: redis-cli, from: app, server: A }
---

## Step: Watch

\`\`\`check
- command: MONITOR
  on: A
  label: "You watch A"
\`\`\`

\`\`\`solution
watch> MONITOR
redis> SET k 1
watch> MONITOR
watch> GET k
\`\`\`
`,
    '99-monitor-stream.md',
  );

  it('goes on once MONITOR has answered, shows what it prints, and takes Ctrl-C before the next line typed there', async () => {
    const host = new HeadlessLessonHost();
    const runner = new LessonRunner(streaming, host);
    runner.start();
    const startUs = host.world.kernel.now;
    await runner.playSolution(0);
    // Without Ctrl-C redis-cli would never read the next line; without going on after OK the world would run for minutes.
    expect(host.world.kernel.now - startUs).toBeLessThan(60_000_000);
    const lines = host.transcript.split('\n').filter((l) => l.startsWith('[watch]'));
    expect(lines.filter((l) => l.endsWith('MONITOR'))).toHaveLength(2);
    expect(lines.some((l) => /"SET" "k" "1"$/.test(l))).toBe(true);
    expect(lines.filter((l) => l === '[watch] ^C')).toHaveLength(2);
    expect(lines[lines.length - 1]).toBe('[watch] "1"');
    expect(runner.evaluate().passing).toBe(true);
  });
});
