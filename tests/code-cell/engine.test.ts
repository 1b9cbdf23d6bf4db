/**
 * The cells' engine (QuickJS in WebAssembly, src/code-cell/engine): a
 * memory with a hard maximum, however a cell fills it, and nothing of the
 * host's within a cell's reach. Run in process, as lesson replays run
 * cells; the page's worker runs the same engine (tests/e2e/code-cell.test.ts).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OUT_OF_MEMORY, QuickJsCell } from '../../src/code-cell/engine/quickjs-cell.js';
import { decodeWire, encodeWire, encodeWireInEngine, engineWalks } from '../../src/code-cell/engine/json-wire.js';
import type { CellMessage, CellResult } from '../../src/code-cell/protocol.js';
import { runCellInProcess } from '../../src/code-cell/run-in-process.js';
import { buildSandboxWorld } from '../../src/web/world-setup.js';

describe("a cell's engine", () => {
  it('stops a cell that fills its memory, whatever fills it, and the next cell runs', async () => {
    const world = buildSandboxWorld(1);
    const bombs = [
      "print('filling'); const a = []; for (;;) a.push('x'.repeat(1e6) + a.length);",
      'const m = new Map(); let i = 0; for (;;) m.set(i++, { i, s: String(i) });',
      // Replies the page copies in: the copy that does not fit is the cell's memory running out.
      "await redis.set('big', 'x'.repeat(5e6)); const a = []; for (;;) { a.push(await redis.get('big')); print(a.length); }",
    ];
    for (const source of bombs) {
      const out = await runCellInProcess(world, { from: 'app', source });
      expect(out.error, source).toEqual(OUT_OF_MEMORY);
      expect(out.stopped).toBe(false);
      // What it printed before is kept.
      expect(out.output[0], source).toBe(source.includes('filling') ? 'filling' : source.includes('print(a.length)') ? '1' : undefined);
    }
    expect(OUT_OF_MEMORY.message).toBe('the cell used all of its 64 MB and was stopped');
    const next = await runCellInProcess(world, { from: 'app', source: "print(await redis.ping(), (await redis.get('big')).length);" });
    expect(next.error).toBeNull();
    expect(next.output).toEqual(['PONG 5000000']);
  });

  it('lets a cell that catches the error go on, within the ceiling', async () => {
    const world = buildSandboxWorld(1);
    const caught = await runCellInProcess(world, { from: 'app', source: "const keep = []; try { for (;;) keep.push('y'.repeat(1e5)); } catch (e) { print(e.name, e.message, keep.length < 700); }" });
    expect(caught.error).toBeNull();
    expect(caught.output).toEqual(['InternalError out of memory true']);
  });

  it("turns deep recursion into the engine's own error", async () => {
    const out = await runCellInProcess(buildSandboxWorld(1), { from: 'app', source: 'let d = 0; function f() { d++; f(); }\ntry { f(); } catch (e) { print(e.message, d > 500); }' });
    expect(out.output).toEqual(['stack overflow true']);
  });

  it("leaves nothing of the host's in reach: no way in or out but the cell's API, no code from text", async () => {
    const out = await runCellInProcess(buildSandboxWorld(1), {
      from: 'app',
      source: [
        'print(typeof __cellHost, typeof cellEngine, typeof eval, typeof Function, typeof fetch, typeof postMessage);',
        "try { (async () => {}).constructor('return 1'); print('made code'); } catch { print('code from text: refused'); }",
        "try { (function () {}).constructor('return 1'); print('made code'); } catch { print('code from text: refused'); }",
      ].join('\n'),
    });
    expect(out.output).toEqual(['undefined undefined undefined undefined undefined undefined', 'code from text: refused', 'code from text: refused']);
  });

  it('carries bigints, bytes and keys that look like its own marks across the edge', () => {
    const value = { n: 12345678901234567890n, b: new Uint8Array([0, 255, 7]), '\u0000n': 'not a bigint', '\u0000b': 0, list: [1n, new Uint8Array([1])] };
    const { json, buffers } = encodeWire(value);
    expect(buffers).toHaveLength(2);
    expect(decodeWire(json, buffers)).toEqual(value);
  });

  it('writes a plain value as JSON.stringify does, and reads back what only looks like a mark as text', () => {
    const plain = { type: 'step', requests: [{ id: 1, op: 'send', argvs: [['SET', 'k', 'a\\u0000b', 1.5]] }], at: new Date(0), none: null, gone: undefined };
    const { json, buffers } = encodeWire(plain);
    expect(buffers).toEqual([]);
    expect(json).toBe(JSON.stringify(plain));
    expect(decodeWire(json, [])).toEqual(JSON.parse(JSON.stringify(plain)));
    // A mark nested under a plain key, and a key escaped deep down, still go the careful way.
    const marked = { a: { b: [{ c: 5n }] }, d: [{ '\u0000x': 1 }] };
    const wire = encodeWire(marked);
    expect(decodeWire(wire.json, wire.buffers)).toEqual(marked);
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    expect(() => encodeWire(loop)).toThrow(TypeError);
  });

  it("writes in the engine's own way exactly the text and bytes encodeWire writes, for any value", () => {
    const anything = fc.anything({ withBigInt: true, withDate: true, withMap: true, withNullPrototype: true, withBoxedValues: true, withTypedArray: true, withSparseArray: true, stringUnit: 'binary' });
    const plain = fc.jsonValue({ stringUnit: 'binary' });
    const withUndefined = fc.dictionary(fc.string({ unit: 'binary' }), fc.option(plain, { nil: undefined }));
    fc.assert(
      fc.property(fc.oneof(anything, plain, withUndefined, fc.array(fc.option(plain, { nil: undefined }))), (value) => {
        let expected: ReturnType<typeof encodeWire> | Error;
        try {
          expected = encodeWire(value);
        } catch (e) {
          expected = e as Error;
        }
        if (expected instanceof Error) expect(() => encodeWireInEngine(value)).toThrow(expected.constructor as ErrorConstructor);
        else expect(encodeWireInEngine(value)).toEqual(expected);
      }),
      { numRuns: 100 },
    );
    expect(encodeWireInEngine({ type: 'step', requests: [{ op: 'send', conn: 1, flight: 'command', argvs: [['hset', 'a"b', '\ud800', -0, 1e21, NaN]], id: 7 }] }).json).toBe(
      '{"type":"step","requests":[{"op":"send","conn":1,"flight":"command","argvs":[["hset","a\\"b","\\ud800",0,1e+21,null]],"id":7}]}',
    );
  });

  it('writes the step a turn ends with, commands and sleeps, without walking it, in the text encodeWire writes', () => {
    const arg = fc.oneof(fc.string({ unit: 'binary' }), fc.double(), fc.integer());
    const send = fc.record({ op: fc.constant('send'), conn: fc.nat(), flight: fc.constantFrom('command', 'pipeline', 'multi'), argvs: fc.array(fc.array(arg, { minLength: 1 }), { minLength: 1, maxLength: 3 }), id: fc.nat() });
    const sleep = fc.record({ op: fc.constant('sleep'), ms: fc.double({ min: 0 }), id: fc.nat() });
    const progress = fc.record({ text: fc.string({ unit: 'binary' }), fraction: fc.option(fc.double({ min: 0, max: 1 }), { nil: null }) });
    fc.assert(
      fc.property(fc.array(fc.oneof(send, sleep), { maxLength: 4 }), fc.option(progress, { nil: undefined }), (requests, p) => {
        const step = p === undefined ? { type: 'step', requests } : { type: 'step', requests, progress: p };
        const walks = engineWalks.count;
        expect(encodeWireInEngine(step)).toEqual(encodeWire(step));
        expect(engineWalks.count).toBe(walks);
      }),
      { numRuns: 200 },
    );
    // Bytes and bigints among the arguments take the walk, to the same text and bytes.
    const walks = engineWalks.count;
    const marked = { type: 'step', requests: [{ op: 'send', conn: 1, flight: 'command', argvs: [['set', 'k', new Uint8Array([1, 2])]], id: 3 }, { op: 'send', conn: 1, flight: 'command', argvs: [['incrby', 'n', 5n]], id: 4 }] };
    expect(encodeWireInEngine(marked)).toEqual(encodeWire(marked));
    expect(engineWalks.count).toBe(walks + 1);
  });

  it('ends every turn of a cell that awaits command after command with its step as the value of one call, and calls back into the host for nothing else', async () => {
    const posted: CellMessage[] = [];
    const cell = await QuickJsCell.create({ post: (m) => posted.push(m), wallNowMs: () => performance.now() });
    const pings = 400;
    const blocks: number[] = [];
    cell.receive({ type: 'start', cellId: 'c', source: `for (let i = 0; i < ${pings}; i++) await redis.ping();`, nowUs: 1_000_000, startUs: 0 });
    for (let turn = 1; turn <= pings + 1; turn++) {
      const step = posted.at(-1)!;
      expect(step.type).toBe(turn <= pings ? 'step' : 'done');
      if (step.type !== 'step') break;
      const results: CellResult[] = step.requests.filter((r) => r.op === 'send').map((r) => ({ id: r.id, ok: true, value: 'PONG' }));
      cell.receive({ type: 'deliver', nowUs: 1_000_000 + turn, results });
      if (turn === 10 || turn === pings - 1) blocks.push(cell.memoryInUse().blocks);
    }
    expect(posted.map((m) => m.type)).toEqual([...Array<string>(pings).fill('step'), 'done']);
    expect(cell.callsFromEngine).toBe(1);
    // The engine's count of its memory in use: every turn's values freed, none counted off that it never counted on.
    expect(blocks.at(-1)! - blocks[0]!).toBeGreaterThanOrEqual(-8);
    expect(blocks.at(-1)! - blocks[0]!).toBeLessThanOrEqual(8);
    // Each answer went in as itself; only the start was a text to parse.
    expect(cell.textsIntoEngine).toBe(1);
    // Only the start went through quickjs-emscripten's handles: every answer and every step went through the FFI beneath them.
    expect(cell.callsThroughHandles).toBe(1);
  });

  it("reads each step's text whole, in ASCII, with characters beyond it, and longer than the text read without a decoder", async () => {
    const args = ['plain', 'é€ and 😀', 'x'.repeat(4095), 'y'.repeat(4096), 'z'.repeat(50_000) + 'é'];
    const posted: CellMessage[] = [];
    const cell = await QuickJsCell.create({ post: (m) => posted.push(m), wallNowMs: () => performance.now() });
    cell.receive({ type: 'start', cellId: 'c', source: `for (const a of ${JSON.stringify(args)}) await redis.set('k', a);`, nowUs: 1_000_000, startUs: 0 });
    const sent: unknown[] = [];
    for (let turn = 1; ; turn++) {
      const step = posted.at(-1)!;
      if (step.type !== 'step') break;
      const send = step.requests.find((r) => r.op === 'send');
      if (send?.op === 'send') sent.push(send.argvs[0]![2]);
      cell.receive({ type: 'deliver', nowUs: 1_000_000 + turn, results: send === undefined ? [] : [{ id: send.id, ok: true, value: 'OK' }] });
    }
    expect(sent).toEqual(args);
    expect(posted.at(-1)).toMatchObject({ type: 'done', error: null });
  });

  it('gives awaiting code the same answer whether it crosses as itself or as JSON text', async () => {
    const answers: unknown[] = ['abc', '', 'é€ and \u0000', 'x\ud800y', 'a😀', 0, 7, -0, 1.5, NaN, Infinity, null, ['a', 1, null], [[null, 1], [null, 'b'], []], { error: { name: 'ReplyError', message: 'WRONGTYPE' } }];
    const posted: CellMessage[] = [];
    const cell = await QuickJsCell.create({ post: (m) => posted.push(m), wallNowMs: () => performance.now() });
    const source = [
      'const seen = [];',
      `for (let i = 0; i < ${answers.length}; i++) {`,
      "  const v = await redis.get('k').catch((e) => 'failed: ' + e.message);",
      "  seen.push(typeof v === 'string' ? ['string', v.split('').map((c) => c.charCodeAt(0))] : [typeof v, Object.is(v, -0) ? '-0' : JSON.stringify(v)]);",
      '}',
      "report('seen', seen);",
    ].join('\n');
    cell.receive({ type: 'start', cellId: 'c', source, nowUs: 1_000_000, startUs: 0 });
    for (const [i, value] of answers.entries()) {
      const step = posted.at(-1)!;
      const send = step.type === 'step' ? step.requests.find((r) => r.op === 'send') : undefined;
      expect(send).toBeDefined();
      const result = (value !== null && typeof value === 'object' && !Array.isArray(value) ? { id: send!.id, ok: false, error: (value as { error: unknown }).error } : { id: send!.id, ok: true, value }) as CellResult;
      cell.receive({ type: 'deliver', nowUs: 1_000_000 + i, results: [result] });
    }
    const codes = (s: string) => ['string', s.split('').map((c) => c.charCodeAt(0))];
    const report = posted.find((m) => m.type === 'report');
    expect(report).toEqual({
      type: 'report',
      name: 'seen',
      value: [codes('abc'), codes(''), codes('é€ and \u0000'), codes('x\ud800y'), codes('a😀'), ['number', '0'], ['number', '7'], ['number', '0'], ['number', '1.5'], ['object', 'null'], ['object', 'null'], ['object', 'null'], ['object', '["a",1,null]'], ['object', '[[null,1],[null,"b"],[]]'], codes('failed: WRONGTYPE')],
    });
    // Null, the strings without surrogates or NUL, the finite numbers other than -0, and a list of them crossed as themselves.
    expect(cell.textsIntoEngine).toBe(1 + 7);
  });
});
