import { describe, expect, it } from 'vitest';
import { ReplyError } from '../../emulator/client-library/reply-error.js';
import { parseCellMessage, plainData } from '../../src/code-cell/cell-messages.js';
import { commandArgv } from '../../src/code-cell/cell-client.js';
import { CellRuntime } from '../../src/code-cell/cell-runtime.js';
import type { CellMessage } from '../../src/code-cell/protocol.js';
import { formatArgs } from '../../src/code-cell/format-value.js';
import { fromWireValue, toWireValue } from '../../src/code-cell/wire-values.js';
import { formatFigure, parseBarChart } from '../../src/web/code-cell/chart-spec.js';
import { indent } from '../../src/web/code-cell/indent.js';

describe('messages from a cell', () => {
  it('takes well-formed steps and dones', () => {
    expect(parseCellMessage({ type: 'step', requests: [{ id: 1, op: 'send', conn: 0, flight: 'command', argvs: [['SET', 'k', 1]] }] })).toEqual({
      type: 'step',
      requests: [{ id: 1, op: 'send', conn: 0, flight: 'command', argvs: [['SET', 'k', 1]] }],
    });
    expect(parseCellMessage({ type: 'done', error: { name: 'TypeError', message: 'x', line: 3, column: 2 }, requests: [] })).toEqual({
      type: 'done',
      error: { name: 'TypeError', message: 'x', line: 3, column: 2 },
      requests: [],
    });
  });

  it('refuses what the page must not act on', () => {
    expect(parseCellMessage(null)).toBe('not an object');
    expect(parseCellMessage({ type: 'eval', code: '1' })).toBe('unknown message type');
    expect(parseCellMessage({ type: 'step', requests: [{ id: 1, op: 'send', conn: 0, flight: 'command', argvs: [['SET', {}]] }] })).toMatch(/argument/);
    expect(parseCellMessage({ type: 'step', requests: [{ id: 1, op: 'send', conn: 0, flight: 'command', argvs: [['A'], ['B']] }] })).toMatch(/single command/);
    expect(parseCellMessage({ type: 'step', requests: [{ id: 1, op: 'send', conn: 0, flight: 'script', argvs: [['A']] }] })).toMatch(/flight/);
    expect(parseCellMessage({ type: 'step', requests: [{ id: -1, op: 'sleep', ms: 1 }] })).toMatch(/id/);
    expect(parseCellMessage({ type: 'step', requests: [{ id: 1, op: 'sleep', ms: Infinity }] })).toMatch(/duration/);
    expect(parseCellMessage({ type: 'step', requests: [{ id: 1, op: 'open', conn: 1, to: 'x'.repeat(300) }] })).toMatch(/bad to/);
  });

  it('cuts long printed lines and refuses more lines than a cell keeps', () => {
    const m = parseCellMessage({ type: 'print', lines: ['a'.repeat(20_000)], dropped: 0 });
    expect(typeof m !== 'string' && m.type === 'print' && m.lines[0]!.length).toBe(10_001);
    expect(parseCellMessage({ type: 'print', lines: Array.from({ length: 2001 }, () => 'x'), dropped: 0 })).toMatch(/without lines/);
    expect(parseCellMessage({ type: 'print', lines: [1], dropped: 0 })).toMatch(/not text/);
    expect(parseCellMessage({ type: 'print', lines: [], dropped: -1 })).toMatch(/without lines/);
  });

  it('keeps a report as plain data only', () => {
    class Thing {
      x = 1;
    }
    expect(plainData({ a: [1, 'b', true, null], n: NaN, big: 12n, t: new Thing() })).toEqual({ a: [1, 'b', true, null], n: null, big: '12', t: null });
  });
});

describe('values across the boundary', () => {
  it('errors inside replies travel as data and come back as ReplyError', () => {
    const wire = toWireValue([
      [null, 1],
      [new ReplyError('WRONGTYPE Operation against a key holding the wrong kind of value'), null],
    ]);
    expect(wire).toEqual([
      [null, 1],
      [{ error: { name: 'ReplyError', message: 'WRONGTYPE Operation against a key holding the wrong kind of value' } }, null],
    ]);
    const back = fromWireValue(wire) as Array<[Error | null, unknown]>;
    expect(back[1]![0]).toBeInstanceOf(ReplyError);
    expect((back[1]![0] as ReplyError).code).toBe('WRONGTYPE');
  });

  it('command arguments are spread as ioredis spreads them', () => {
    expect(commandArgv('hset', ['h', { a: 1, b: 'x' }])).toEqual(['hset', 'h', 'a', 1, 'b', 'x']);
    expect(commandArgv('sadd', ['s', ['a', 'b'], 'c'])).toEqual(['sadd', 's', 'a', 'b', 'c']);
    expect(commandArgv('set', ['k', true])).toEqual(['set', 'k', 'true']);
    expect(() => commandArgv('set', ['k', undefined])).toThrow('SET: argument 2 is undefined');
    expect(() => commandArgv('set', ['k', null])).toThrow('SET: argument 2 is null');
  });
});

describe('print formatting', () => {
  it('shows values as Node does', () => {
    expect(formatArgs(['count', 3, ['a', null], { plain: 1.5 }, 12n, undefined])).toBe("count 3 [ 'a', null ] { plain: 1.5 } 12n undefined");
    expect(formatArgs([new ReplyError('ERR x')])).toBe('ReplyError: ERR x');
    expect(formatArgs([[[null, 'OK']]])).toBe("[ [ null, 'OK' ] ]");
    const loop: unknown[] = [];
    loop.push(loop);
    expect(formatArgs([loop])).toBe('[ [Circular] ]');
    expect(formatArgs([Array.from({ length: 102 }, (_, i) => i)])).toMatch(/, 99, \.\.\. 2 more items \]$/);
  });
});

describe("the editor's Tab", () => {
  it('indents at the caret, indents and outdents selected lines', () => {
    expect(indent('ab', 1, 1, false)).toEqual({ text: 'a  b', selStart: 3, selEnd: 3 });
    expect(indent('a\nb', 0, 3, false)).toEqual({ text: '  a\n  b', selStart: 2, selEnd: 7 });
    expect(indent('  a\n  b', 2, 7, true)).toEqual({ text: 'a\nb', selStart: 0, selEnd: 3 });
  });
});

describe('chart reports', () => {
  it('reads a bar chart, filling what is missing', () => {
    const c = parseBarChart({ chart: 'bars', log: true, groups: ['unix', 'vpn'], series: [{ label: 'book', values: [3761, 'x'], reference: true }, { values: [4255] }] });
    expect(c).toEqual({
      title: '',
      unit: '',
      log: true,
      groups: ['unix', 'vpn'],
      series: [
        { label: 'book', values: [3761, null], reference: true },
        { label: 'series 2', values: [4255, null], reference: false },
      ],
    });
    expect(parseBarChart({ chart: 'pie' })).toBeNull();
    expect(parseBarChart([1, 2])).toBeNull();
  });

  it('formats figures with the digits a reader needs', () => {
    expect(formatFigure(3761.4)).toBe('3,761');
    expect(formatFigure(18.23)).toBe('18.2');
    expect(formatFigure(3.671)).toBe('3.67');
    expect(formatFigure(null)).toBe('–');
  });
});

describe("a cell's runtime", () => {
  /** A runtime with the cell's code compiled by this process, its messages kept, its tasks run by hand. */
  function runtimeOf(source: string) {
    const posted: CellMessage[] = [];
    const tasks: Array<() => void> = [];
    const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (...a: string[]) => (...args: unknown[]) => Promise<unknown>;
    const runtime = new CellRuntime(
      { post: (m) => posted.push(m), afterMicrotasks: (fn) => tasks.push(fn), compile: (params, body) => new AsyncFunction(...params, body) },
      { type: 'start', cellId: 'c', source, nowUs: 1_000_000, startUs: 0 },
    );
    const flush = async () => {
      for (let i = 0; i < 10; i++) await null;
      while (tasks.length !== 0) tasks.shift()!();
    };
    return { runtime, posted, flush };
  }

  it('resumes code awaiting a command, a failed one or a sleep in the first promise job after the answer, in the order answered', async () => {
    const { runtime, posted, flush } = runtimeOf(
      "const a = redis.get('a').then((v) => report('get', v)); const b = sleep(5).then((v) => report('sleep', v)); const c = redis.hget('h', 'f').catch((e) => report('failed', e.message)); await Promise.all([a, b, c]);",
    );
    runtime.run();
    await flush();
    const step = posted.at(-1)!;
    expect(step.type).toBe('step');
    const ids = step.type === 'step' ? step.requests.filter((r) => r.op !== 'open').map((r) => r.id) : [];
    expect(ids).toHaveLength(3);
    runtime.receive({
      type: 'deliver',
      nowUs: 1_005_000,
      results: [
        { id: ids[2]!, ok: false, error: { name: 'ReplyError', message: 'WRONGTYPE' } },
        { id: ids[1]!, ok: true, value: null },
        { id: ids[0]!, ok: true, value: '1' },
      ],
    });
    // One job: the reactions the cell chained on the three answers ran, in the order the page answered.
    await null;
    expect(posted.filter((m) => m.type === 'report')).toEqual([
      { type: 'report', name: 'failed', value: 'WRONGTYPE' },
      { type: 'report', name: 'sleep', value: null },
      { type: 'report', name: 'get', value: '1' },
    ]);
  });

  it('resumes code awaiting one command answered with one plain value as a deliver of that one result does', async () => {
    const source = "const got = []; for (const k of ['a', 'b', 'c']) got.push(await redis.get(k)); await sleep(10); report('got', got);";
    const answers: Array<string | number | null> = ['x', 7, null];
    const play = async (give: (r: CellRuntime, nowUs: number, id: number, value: string | number | null) => void) => {
      const { runtime, posted, flush } = runtimeOf(source);
      runtime.run();
      await flush();
      for (let turn = 0; ; turn++) {
        const step = posted.at(-1)!;
        if (step.type !== 'step') break;
        const r = step.requests.filter((q) => q.op !== 'open')[0]!;
        give(runtime, 2_000_000 + turn, r.id, r.op === 'sleep' ? null : answers[turn]!);
        await flush();
      }
      return posted;
    };
    const delivered = await play((r, nowUs, id, value) => r.receive({ type: 'deliver', nowUs, results: [{ id, ok: true, value }] }));
    const answered = await play((r, nowUs, id, value) => r.answer(nowUs, id, value));
    expect(answered).toEqual(delivered);
    expect(answered.find((m) => m.type === 'report')).toEqual({ type: 'report', name: 'got', value: ['x', 7, null] });
  });
});
