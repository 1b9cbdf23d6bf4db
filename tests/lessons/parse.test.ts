import { describe, expect, it } from 'vitest';
import { LessonFormatError, parseLesson } from '../../src/lessons/parse.js';

const WORLD = `world:
  seed: 7
  hosts:
    - { name: A }
  servers:
    - { host: A, config: { appendonly: "yes", save: "" } }
  terminals:
    - { name: redis, kind: redis-cli, from: A, server: A }
    - { name: root, kind: shell, host: A }`;

function lessonText(body: string, world = WORLD): string {
  return `---\nid: tiny\nnumber: 98\ntitle: Tiny\nsummary: A lesson for tests.\n${world}\n---\n\nIntro.\n\n${body}`;
}

const STEP = `## Step: Write a key

Some prose with \`code\`.

\`\`\`redis
SET a 1
\`\`\`

\`\`\`sim label="Pull the plug"
power-loss A
power-on A
start A
\`\`\`

\`\`\`check
- key: a
  on: A
  equals: "1"
  why-not: a is missing
\`\`\`

\`\`\`hint
First hint.
\`\`\`

\`\`\`hint
Second hint.
\`\`\`

\`\`\`solution
redis> SET a 1
sim> power-loss A
\`\`\`
`;

function problems(text: string, file = '98-tiny.md'): string {
  try {
    parseLesson(text, file);
  } catch (e) {
    expect(e).toBeInstanceOf(LessonFormatError);
    return (e as Error).message;
  }
  throw new Error('the lesson was accepted');
}

describe('lesson files', () => {
  it('reads steps, run blocks, events, checks, hints and solution in order', () => {
    const lesson = parseLesson(lessonText(STEP + '\n## What you saw\n\nThe end.\n'), '98-tiny.md');
    expect(lesson.intro).toBe('Intro.');
    expect(lesson.outro).toBe('## What you saw\n\nThe end.');
    expect(lesson.steps).toHaveLength(1);
    const step = lesson.steps[0]!;
    expect(step.title).toBe('Write a key');
    expect(step.blocks.map((b) => b.kind)).toEqual(['prose', 'run', 'events']);
    expect(step.blocks[1]).toEqual({ kind: 'run', terminal: 'redis', lines: ['SET a 1'] });
    expect(step.blocks[2]).toEqual({ kind: 'events', label: 'Pull the plug', lines: ['power-loss A', 'power-on A', 'start A'] });
    expect(step.checks).toEqual([{ kind: 'key', key: 'a', on: 'A', db: 0, equals: '1', 'why-not': 'a is missing' }]);
    expect(step.hints).toEqual(['First hint.', 'Second hint.']);
    expect(step.solution).toEqual([
      { kind: 'line', terminal: 'redis', line: 'SET a 1' },
      { kind: 'event', line: 'power-loss A' },
    ]);
  });

  it('reads a code cell with its host and keeps its source as written', () => {
    const body = STEP.replace('```hint\nFirst', '```js cell id=count-keys from=A\nconst n = await redis.dbsize();\nprint(n);\n```\n\n```hint\nFirst');
    const step = parseLesson(lessonText(body), '98-tiny.md').steps[0]!;
    expect(step.blocks[3]).toEqual({ kind: 'cell', id: 'count-keys', from: 'A', source: 'const n = await redis.dbsize();\nprint(n);' });
  });

  it('leaves other fenced code as prose', () => {
    const step = parseLesson(lessonText(STEP.replace('Some prose', '```text\nnot a block\n```\n\nSome prose')), '98-tiny.md').steps[0]!;
    expect(step.blocks[0]).toEqual({ kind: 'prose', markdown: '```text\nnot a block\n```\n\nSome prose with `code`.' });
  });

  it('names the file and the line of a bad event', () => {
    const msg = problems(lessonText(STEP.replace('power-on A\nstart A', 'power-on B\nstart A')));
    expect(msg).toMatch(/^98-tiny\.md: line \d+: "power-on B": no host named "B" in the lesson's world$/);
  });

  it('says which field of the front matter is wrong', () => {
    const msg = problems(lessonText(STEP, WORLD.replace('- { name: A }', '- { name: A, profile: cray }')));
    expect(msg).toContain('front matter: world.hosts.0.profile: Invalid option');
  });

  it('refuses a check that names two kinds or none', () => {
    expect(problems(lessonText(STEP.replace('- key: a', '- key: a\n  info: x')))).toContain('check 1: mixes key and info');
    expect(problems(lessonText(STEP.replace('- key: a\n  on: A\n  equals: "1"', '- on: A')))).toContain('check 1: says nothing to check');
  });

  it('refuses unknown fields in a check', () => {
    expect(problems(lessonText(STEP.replace('equals: "1"', 'equal: "1"')))).toMatch(/check 1 \(key\): Unrecognized key: "equal"/);
  });

  it('refuses a step without checks or solution', () => {
    const msg = problems(lessonText('## Step: Empty\n\nNothing here.\n'));
    expect(msg).toContain('step "Empty" has no ```check block');
    expect(msg).toContain('step "Empty" has no ```solution block');
  });

  it('refuses a solution line for a terminal that does not exist', () => {
    expect(problems(lessonText(STEP.replace('redis> SET a 1', 'Frank> SET a 1')))).toContain('no terminal named Frank');
  });

  it('refuses a run block into a terminal of the other kind', () => {
    expect(problems(lessonText(STEP.replace('```redis\n', '```redis terminal=root\n')))).toContain('terminal root is a shell terminal');
  });

  it('refuses a file whose name does not match its number and id', () => {
    expect(problems(lessonText(STEP), '05-tiny.md')).toContain('is named 98-tiny.md, not 05-tiny.md');
  });

  it('refuses a file without front matter', () => {
    expect(problems('# Just Markdown\n')).toContain('starts with YAML front matter');
  });
});
