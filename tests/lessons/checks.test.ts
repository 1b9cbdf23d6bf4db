import { describe, expect, it } from 'vitest';
import { infoText } from '../../emulator/server/info.js';
import type { World } from '../../emulator/world/world.js';
import { evaluateCheck, type CheckContext } from '../../src/lessons/checks.js';
import { HeadlessLessonHost } from '../../src/lessons/headless.js';
import type { Lesson } from '../../src/lessons/lesson.js';
import { parseLesson } from '../../src/lessons/parse.js';
import { runningServer } from '../../src/lessons/observe.js';
import { LessonRunner, type StepStatus } from '../../src/lessons/runner.js';
import { checkSchema, type Check } from '../../src/lessons/schema.js';
import { lessonFileNames, loadLesson } from './lesson-files.js';
import { inProcessCells } from './replay.js';

/** Everything a check could disturb: the action log, the trace, each server's INFO and each key's access time. */
function fingerprint(world: World): string {
  const parts: string[] = [JSON.stringify(world.checkpoint()), String(world.trace.count), world.trace.hash()];
  for (const [name, host] of world.hosts) {
    for (const p of host.processes.values()) {
      const server = runningServer(world, name, (p as { port?: number }).port ?? -1);
      if (server === null || server !== p) continue;
      parts.push(infoText(server.server, ['everything']));
      for (const db of server.server.dbs) parts.push(JSON.stringify([...db.dict.keys()]), JSON.stringify([...db.dict.keys()].map((k) => db.access.get(k))), JSON.stringify([...db.expires]));
    }
  }
  return parts.join('\n');
}

function everyCheck(lesson: Lesson): Check[] {
  return lesson.steps.flatMap((s) => s.checks);
}

function contextOf(host: HeadlessLessonHost, runner: LessonRunner): CheckContext {
  return { world: host.world, stepStartUs: runner.progress().stepStartUs, lastReply: (t) => host.lastReply(t) };
}

/** A runner whose checks never run: the control for what the world does without them. */
class UncheckedRunner extends LessonRunner {
  override evaluate(): StepStatus {
    return this.stepStatus;
  }
}

async function playAll(runner: LessonRunner): Promise<void> {
  runner.start();
  for (let i = 0; i < runner.lesson.steps.length; i++) {
    await runner.playSolution(i);
    runner.next();
  }
}

/** A lesson with a benchmark (16) plays for a minute or more of this process's time on a busy 2-core machine. */
const LESSON_TIMEOUT_MS = 240_000;

describe('evaluating checks', () => {
  for (const file of lessonFileNames()) {
    it(`changes nothing in the world of ${file}, at any step`, async () => {
      const lesson = loadLesson(file);
      const host = new HeadlessLessonHost();
      const runner = new LessonRunner(lesson, host, inProcessCells(host));
      runner.start();
      for (let i = 0; i <= lesson.steps.length; i++) {
        const before = fingerprint(host.world);
        for (let round = 0; round < 3; round++) for (const c of everyCheck(lesson)) evaluateCheck(c, contextOf(host, runner));
        expect(fingerprint(host.world), `after evaluating every check at step ${i + 1}`).toBe(before);
        if (i < lesson.steps.length) {
          await runner.playSolution(i);
          runner.next();
        }
      }
    }, LESSON_TIMEOUT_MS);

    it(`leaves the world of ${file} to go on exactly as it would have without them`, async () => {
      const lesson = loadLesson(file);
      const checked = new HeadlessLessonHost();
      await playAll(new LessonRunner(lesson, checked, inProcessCells(checked)));
      const unchecked = new HeadlessLessonHost();
      await playAll(new UncheckedRunner(lesson, unchecked, inProcessCells(unchecked)));
      checked.world.advance(5000);
      unchecked.world.advance(5000);
      expect(checked.world.trace.hash()).toBe(unchecked.world.trace.hash());
    }, LESSON_TIMEOUT_MS);
  }

  it('neither deletes nor touches a key whose time is up, nor counts a hit or a miss', async () => {
    const lesson = parseLesson(
      `---
id: expiry
number: 97
title: Expiry
summary: A key past its time.
world:
  seed: 3
  hosts: [{ name: A }]
  servers: [{ host: A, config: { enable-debug-command: local } }]
  data:
    A: ["DEBUG SET-ACTIVE-EXPIRE 0", "SET gone 1 PX 100", "SET kept 2"]
  terminals: [{ name: cli, kind: redis-cli, from: A, server: A }]
---

## Step: Look

\`\`\`check
- key: gone
  on: A
  exists: false
- key: kept
  on: A
  equals: "2"
\`\`\`

\`\`\`solution
cli> PING
\`\`\`
`,
      '97-expiry.md',
    );
    const host = new HeadlessLessonHost();
    const runner = new LessonRunner(lesson, host);
    runner.start();
    const server = runningServer(host.world, 'A', 6379)!;
    const db = server.server.dbs[0]!;
    expect(db.dict.has('gone')).toBe(true);
    const before = fingerprint(host.world);
    const status = runner.evaluate(true);
    expect(status.results.map((r) => r.ok)).toEqual([true, true]);
    expect(db.dict.has('gone')).toBe(true);
    expect(fingerprint(host.world)).toBe(before);
  });
});

describe('a failing check', () => {
  const world = `world:
  seed: 4
  hosts: [{ name: A }, { name: B }]
  servers: [{ host: A }, { host: B }]
  data:
    A: ["SET votes 528", "RPUSH q a b c", "HSET h f 1"]
  terminals: [{ name: cli, kind: redis-cli, from: A, server: A }]`;

  async function results(checks: string): Promise<{ ok: boolean; message: string; detail: string }[]> {
    const lesson = parseLesson(`---\nid: why\nnumber: 96\ntitle: Why\nsummary: Why not.\n${world}\n---\n\n## Step: One\n\n\`\`\`check\n${checks}\n\`\`\`\n\n\`\`\`solution\ncli> PING\n\`\`\`\n`, '96-why.md');
    const host = new HeadlessLessonHost();
    const runner = new LessonRunner(lesson, host);
    runner.start();
    return runner.evaluate(true).results.map((r) => ({ ...r }));
  }

  it('says what it found, in words about the world', async () => {
    const [value, dbsize, length, field, missing, file, happened] = await results(
      [
        '- { key: votes, on: A, equals: "529" }',
        '- { dbsize: A, equals: 5 }',
        '- { key: q, on: A, length: { equals: 2 } }',
        '- { key: h, on: A, field: { name: f, equals: "2" } }',
        '- { key: nope, on: B }',
        '- { file: /var/lib/redis/dump.rdb, on: A }',
        '- { happened: power-loss, on: A }',
      ].join('\n'),
    );
    expect(value).toMatchObject({ ok: false, label: '"votes" is "529" on A', detail: '"votes" is "528" on A, not "529"' });
    expect(dbsize).toMatchObject({ ok: false, label: 'The server on A holds 5 keys', detail: 'the server on A holds 3 keys, not 5' });
    expect(length).toMatchObject({ ok: false, label: '"q" exists on A, holding 2 members', detail: '"q" holds 3 items on A, not 2' });
    expect(field).toMatchObject({ ok: false, detail: 'the field "f" of "h" is "1", not "2"' });
    expect(missing).toMatchObject({ ok: false, label: '"nope" exists on B', detail: '"nope" does not exist on B' });
    expect(file).toMatchObject({ ok: false, detail: '/var/lib/redis/dump.rdb on A does not exist' });
    expect(happened).toMatchObject({ ok: false, label: 'The power went out on A', detail: 'the power has not gone out on A in this step' });
  });

  it("keeps its label whether it passes or not, and shows the lesson's own words first when it fails", async () => {
    const [r] = await results('- key: votes\n  on: A\n  exists: false\n  label: "The votes are gone"\n  why-not: "votes survived the crash"');
    expect(r).toEqual({ ok: false, label: 'The votes are gone', whyNot: 'votes survived the crash', message: 'votes survived the crash', detail: '"votes" is still there on A' });
  });

  it('says how to bring a server back when the server it reads is not running', async () => {
    const lesson = parseLesson(`---\nid: down\nnumber: 94\ntitle: Down\nsummary: Down.\n${world}\n---\n\n## Step: One\n\n\`\`\`check\n- { key: votes, on: A }\n- { info: aof_enabled, on: A, equals: 0 }\n\`\`\`\n\n\`\`\`solution\ncli> PING\n\`\`\`\n`, '94-down.md');
    const host = new HeadlessLessonHost();
    const runner = new LessonRunner(lesson, host);
    runner.start();
    host.world.signal('A', host.world.redis('A')!.pid, 'KILL');
    const running = runner.evaluate(true).results.map((r) => r.detail);
    expect(running).toEqual(['the server on A is not running (start it with redis-server /etc/redis/redis.conf in a shell on A)', 'the server on A is not running (start it with redis-server /etc/redis/redis.conf in a shell on A)']);
    host.world.powerOff('A');
    expect(runner.evaluate(true).results[0]!.detail).toMatch(/^A has no power/);
  });

  it('compares an INFO field with the same field of another server', async () => {
    const [r] = await results('- { info: db0.keys, on: A, same-as: { on: B } }');
    expect(r).toMatchObject({ ok: false, detail: 'db0.keys is 3 on A, and db0.keys is missing on B' });
  });

  it('compares a key with the same key on another server', async () => {
    const [missing, other] = await results(['- { key: votes, on: A, same-as: { on: B } }', '- { key: q, on: A, same-as: { on: B } }'].join('\n'));
    expect(missing).toMatchObject({ ok: false, label: '"votes" on A is the same as on B', detail: '"votes" is "528" on A, and does not exist on B' });
    expect(other).toMatchObject({ ok: false, detail: '"q" is a list on A, not a string' });
  });

  it("reads a redis-cli terminal's last reply in this step as redis-cli printed it", async () => {
    const lesson = parseLesson(
      `---\nid: reply\nnumber: 95\ntitle: Reply\nsummary: Replies.\n${world}\n---\n\n## Step: One\n\n\`\`\`check\n- { reply: cli, equals: "(integer) 3" }\n\`\`\`\n\n\`\`\`solution\ncli> LLEN q\n\`\`\`\n\n## Step: Two\n\n\`\`\`check\n- { reply: cli, equals: "(integer) 3" }\n\`\`\`\n\n\`\`\`solution\ncli> LLEN q\n\`\`\`\n`,
      '95-reply.md',
    );
    const host = new HeadlessLessonHost();
    const runner = new LessonRunner(lesson, host);
    runner.start();
    expect(runner.evaluate(true).results[0]).toMatchObject({ ok: false, detail: 'the cli terminal has received no reply in this step' });
    await runner.playSolution();
    expect(runner.evaluate().results[0]).toMatchObject({ ok: true, detail: 'the last reply in the cli terminal is (integer) 3' });
    runner.next();
    // The reply of the step before does not count for this one.
    expect(runner.evaluate().results[0]).toMatchObject({ ok: false, detail: 'the cli terminal has received no reply in this step' });
  });

  it('is refused by the schema when it names no kind', () => {
    expect(checkSchema.safeParse({ key: 'x', on: 'A' }).success).toBe(false);
  });
});
