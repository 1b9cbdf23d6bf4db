import { describe, expect, it } from 'vitest';
import { NullArrayReply } from '../../emulator/resp/reply.js';
import { HeadlessLessonHost } from '../../src/lessons/headless.js';
import type { Lesson } from '../../src/lessons/lesson.js';
import { parseLesson } from '../../src/lessons/parse.js';
import { LessonRunner } from '../../src/lessons/runner.js';
import { loadLesson } from './lesson-files.js';

const WORLD = `world:
  seed: 8
  hosts: [{ name: A }, { name: app }]
  servers: [{ host: A, config: { appendonly: "yes", appendfsync: everysec, save: "" } }]
  data:
    A: ["SET votes 100", "SET other 1"]
  terminals:
    - { name: cli, kind: redis-cli, from: app, server: A }
    - { name: A, kind: shell, host: A }`;

/** A lesson of WORLD with one step per check block (the solution only pings). */
function lessonWith(...checkBlocks: string[]): Lesson {
  const steps = checkBlocks.map((c, i) => `## Step: ${i + 1}\n\n\`\`\`check\n${c}\n\`\`\`\n\n\`\`\`solution\ncli> PING\n\`\`\`\n`).join('\n');
  return parseLesson(`---\nid: relative\nnumber: 93\ntitle: Relative\nsummary: Checks relative to the step.\n${WORLD}\n---\n\n${steps}`, '93-relative.md');
}

function start(lesson: Lesson): { runner: LessonRunner; host: HeadlessLessonHost } {
  const host = new HeadlessLessonHost();
  const runner = new LessonRunner(lesson, host);
  runner.start();
  return { runner, host };
}

const oks = (runner: LessonRunner) => runner.evaluate().results.map((r) => r.ok);

describe('checks relative to what happened in the step', () => {
  it('tell a write lost in a power cut from one that survived it, whatever the value was before', async () => {
    const { runner, host } = start(lessonWith('- { key: votes, on: A, lost: power-loss }\n- { key: votes, on: A, kept: power-loss }\n- { config: appendfsync, on: A, equals: "no", at: power-loss }'));
    expect(oks(runner)).toEqual([false, false, false]);
    expect(runner.evaluate().results[0]!.detail).toBe('the power has not gone out on A in this step');

    // Synced by everysec before the cut: kept, not lost, and appendfsync was everysec then.
    await runner.runLines('cli', ['INCR votes']);
    host.world.advance(3000);
    await runner.playEvents(['power-loss A', 'power-on A', 'start A']);
    expect(oks(runner)).toEqual([false, true, false]);
    expect(runner.evaluate().results[0]!.detail).toBe('"votes" is "101" on A, as it was "101" when the power went out on A: nothing was lost');
    expect(runner.evaluate().results[2]!.detail).toBe('appendfsync is "everysec" on A, not "no", when the power went out on A');

    // Never synced: the acknowledged write is gone, judged against the last cut only.
    await runner.runLines('cli', ['PING', 'CONFIG SET appendfsync no', 'INCR votes']);
    host.world.advance(3000);
    await runner.playEvents(['power-loss A', 'power-on A', 'start A']);
    expect(oks(runner)).toEqual([true, false, true]);
    expect(runner.evaluate().results[0]!.detail).toBe('"votes" was "102" when the power went out on A, and is "101" now');
  });

  it('keep what a server held when it was killed, and forget it in the next step', async () => {
    const { runner, host } = start(lessonWith('- { key: votes, on: A, kept: kill }', '- { key: votes, on: A, kept: kill }'));
    await runner.runLines('cli', ['INCR votes']);
    await runner.playEvents(['kill A', 'start A']);
    expect(oks(runner)).toEqual([true]);
    runner.next();
    expect(oks(runner)).toEqual([false]);
    expect(host.world.redis('A')).toBeDefined();
  });

  it('count a key as written only when a command changed it in this step, in a transaction too', async () => {
    const { runner } = start(lessonWith('- { key: votes, on: A, written: true }\n- { key: other, on: A, written: true }'));
    await runner.runLines('cli', ['GET votes', 'SET votes 100']);
    expect(oks(runner)).toEqual([true, false]);
    await runner.runLines('cli', ['MULTI', 'INCR other', 'EXEC']);
    expect(oks(runner)).toEqual([true, true]);
    expect(runner.evaluate().results[1]!.label).toBe('"other" exists on A, written in this step');
  });

  it('do not count a transaction that WATCH made EXEC refuse', async () => {
    const { runner, host } = start(lessonWith('- { key: other, on: A, written: true }'));
    await runner.runLines('cli', ['WATCH votes', 'MULTI', 'INCR other']);
    await runner.playEvents(['shell app redis-cli -h A SET votes 1']);
    await runner.runLines('cli', ['EXEC']);
    expect(host.lastReply('cli')?.reply).toBeInstanceOf(NullArrayReply);
    expect(oks(runner)).toEqual([false]);
  });

  it('count commands, programs and happenings by name, with the words of the world', async () => {
    const { runner } = start(
      lessonWith(
        [
          '- { command: CONFIG SET appendfsync always, on: A }',
          '- { ran: redis-check-aof, on: A, args: --fix }',
          '- { happened: fork, on: A, count: { min: 2 } }',
          '- { info: aof_rewrites, on: A, min: 1, after: aof-rewrite }',
        ].join('\n'),
      ),
    );
    const labels = runner.evaluate().results.map((r) => r.label);
    expect(labels).toEqual([
      'CONFIG SET appendfsync always ran on A',
      'redis-check-aof --fix ran on A',
      'redis-server on A forked a child process twice',
      'aof_rewrites on A is at least 1, after this: the append-only file on A was rewritten',
    ]);
    await runner.runLines('cli', ['config set APPENDFSYNC always', 'BGREWRITEAOF']);
    await runner.playEvents(['advance 1s']);
    await runner.runLines('A', ['redis-check-aof /var/lib/redis/appendonlydir/appendonly.aof.manifest']);
    expect(oks(runner)).toEqual([true, false, false, true]);
    expect(runner.evaluate().results[2]!.detail).toBe('redis-server on A forked a child process; this step asks for twice');
    await runner.runLines('A', ['redis-check-aof --fix /var/lib/redis/appendonlydir/appendonly.aof.manifest']);
    await runner.runLines('cli', ['BGSAVE']);
    await runner.playEvents(['advance 1s']);
    expect(oks(runner)).toEqual([true, true, true, true]);
  });

  it('keep what the step has seen in its progress, so a reload finds it again', async () => {
    const lesson = lessonWith('- { key: votes, on: A, lost: power-loss }\n- { happened: power-loss, on: A }');
    const { runner, host } = start(lesson);
    await runner.runLines('cli', ['CONFIG SET appendfsync no', 'INCR votes']);
    await runner.playEvents(['power-loss A', 'power-on A', 'start A']);
    expect(oks(runner)).toEqual([true, true]);
    const saved = JSON.parse(JSON.stringify(runner.progress())) as unknown;
    const again = new LessonRunner(lesson, host);
    again.restoreProgress(saved);
    expect(oks(again)).toEqual([true, true]);
  });
});

describe('lesson 5, step 7, played before appendfsync is set to no', () => {
  it('is not a dead end: setting no and playing again finishes the step, and so does "Do it for me"', async () => {
    const lesson = loadLesson('05-append-only-file.md');
    for (const finish of ['by hand', 'do it for me'] as const) {
      const host = new HeadlessLessonHost();
      const runner = new LessonRunner(lesson, host);
      runner.start();
      for (let i = 0; i < 6; i++) {
        await runner.playSolution(i);
        runner.next();
      }
      const events = lesson.steps[6]!.blocks.find((b) => b.kind === 'events')!;
      if (events.kind !== 'events') throw new Error('no events block');
      // Under everysec, five seconds are enough for the vote to reach the disk: it survives.
      await runner.playEvents(events.lines);
      await runner.runLines('redis', ['PING', 'GET article:92617:votes']);
      expect(runner.evaluate().passing).toBe(false);
      expect(runner.evaluate().results.find((r) => !r.ok)!.label).toBe('appendfsync was no when the power went out');
      if (finish === 'by hand') {
        await runner.runLines('redis', ['CONFIG SET appendfsync no']);
        await runner.playEvents(events.lines);
      } else {
        await runner.playSolution();
      }
      expect(runner.evaluate().results.filter((r) => !r.ok).map((r) => r.detail), finish).toEqual([]);
    }
  });
});
