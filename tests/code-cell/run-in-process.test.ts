import { describe, expect, it } from 'vitest';
import { World } from '../../emulator/world/world.js';
import { runCellInProcess } from '../../src/code-cell/run-in-process.js';
import { registerHostSetup } from '../../emulator/programs/host-setup.js';
import { buildSandboxWorld } from '../../src/web/world-setup.js';

function vpnWorld(seed = 1) {
  const world = new World({ seed });
  world.addHost('A', 'core2duo');
  world.addHost('app', 'core2duo');
  world.link('app', 'A', 'vpn');
  world.startRedis('A');
  return world;
}

describe('a code cell run in process', () => {
  it('runs commands, pipelines and transactions on the world and prints their replies', async () => {
    const world = buildSandboxWorld(1);
    const out = await runCellInProcess(world, {
      from: 'app',
      source: [
        "print(await redis.ping());",
        "await redis.set('visits', 1);",
        "print(await redis.incr('visits'));",
        "print(await redis.pipeline().incr('visits').get('visits').exec());",
        "print(await redis.multi().hset('user:1', { name: 'Frank', funds: 43 }).hgetall('user:1').exec());",
        "print(await redis.lpush('list', ['a', 'b']), await redis.lrange('list', 0, -1));",
      ].join('\n'),
    });
    expect(out.error).toBeNull();
    expect(out.output).toEqual(['PONG', '2', "[ [ null, 3 ], [ null, '3' ] ]", "[ [ null, 2 ], [ null, [ 'name', 'Frank', 'funds', '43' ] ] ]", "2 [ 'b', 'a' ]"]);
    const db = world.redis('redis')!.server.dbs[0]!;
    expect(db.size).toBe(3);
  });

  it('sends what it does as recorded actions, so a restored world holds the cell\'s writes', async () => {
    const world = buildSandboxWorld(2);
    await runCellInProcess(world, {
      from: 'app',
      source: "await redis.set('a', 'x'); const p = redis.pipeline(); for (let i = 0; i < 10; i++) p.rpush('l', i); await p.exec();",
    });
    const cp = world.checkpoint();
    expect(cp.complete).toBe(true);
    const sends = cp.actions.filter((a) => a.action.kind === 'clientSend').map((a) => a.action);
    expect(sends).toHaveLength(2);
    expect(sends[1]).toMatchObject({ flight: 'pipeline', argvs: Array.from({ length: 10 }, (_, i) => ['rpush', 'l', String(i)]) });
    // The cell's connection was closed when it ended.
    expect(cp.actions.some((a) => a.action.kind === 'closeClient')).toBe(true);
    expect(world.clients.size).toBe(0);
    const copy = World.restore(cp, registerHostSetup);
    expect(copy.trace.hash()).toBe(world.trace.hash());
    expect(copy.redis('redis')!.server.dbs[0]!.size).toBe(2);
  });

  it('gives the same history every time', async () => {
    const source = "for (let i = 0; i < 50; i++) { await redis.incr('n'); if (i % 10 === 0) await sleep(7); } print(time());";
    const a = buildSandboxWorld(4);
    const b = buildSandboxWorld(4);
    const ra = await runCellInProcess(a, { from: 'app', source });
    const rb = await runCellInProcess(b, { from: 'app', source });
    expect(ra.output).toEqual(rb.output);
    expect(a.trace.hash()).toBe(b.trace.hash());
    expect(a.kernel.now).toBe(b.kernel.now);
  });

  it('a pipeline costs one round trip over the VPN, five commands one by one cost five', async () => {
    const world = vpnWorld();
    const out = await runCellInProcess(world, {
      from: 'app',
      source: [
        "const conn = connect({ to: 'A:6379', client: 'python' });",
        'await conn.ping();',
        'let t = time();',
        "for (let i = 0; i < 5; i++) await conn.incr('n');",
        "report('plain', time() - t);",
        't = time();',
        "const p = conn.pipeline(); for (let i = 0; i < 5; i++) p.incr('n'); await p.exec();",
        "report('pipelined', time() - t);",
      ].join('\n'),
    });
    expect(out.error).toBeNull();
    const plain = out.reports.plain as number;
    const pipelined = out.reports.pipelined as number;
    expect(plain).toBeGreaterThan(5 * 0.048);
    expect(pipelined).toBeGreaterThan(0.048);
    expect(pipelined).toBeLessThan(2 * 0.048);
  });

  it('WATCH then EXEC gives null when another client changed the key', async () => {
    const world = buildSandboxWorld(1);
    const out = await runCellInProcess(world, {
      from: 'app',
      source: [
        "await redis.sadd('inventory:17', 'ItemM');",
        "await redis.watch('inventory:17');",
        "const other = connect();",
        "await other.sadd('inventory:17', 'ItemN');",
        "print(await redis.multi().zadd('market:', 97, 'ItemM.17').srem('inventory:17', 'ItemM').exec());",
        "await redis.watch('inventory:17');",
        "print(await redis.multi().zadd('market:', 97, 'ItemM.17').srem('inventory:17', 'ItemM').exec());",
      ].join('\n'),
    });
    expect(out.error).toBeNull();
    expect(out.output).toEqual(['null', '[ [ null, 1 ], [ null, 1 ] ]']);
  });

  it('sleeps in virtual time: an hour passes at once', async () => {
    const world = buildSandboxWorld(1);
    const before = world.kernel.now;
    const out = await runCellInProcess(world, {
      from: 'app',
      maxVirtualMs: 4_000_000,
      source: [
        'const t0 = time(), d0 = Date.now(), p0 = performance.now();',
        'await sleep(3_600_000);',
        'print(time() - t0, Date.now() - d0, performance.now() - p0);',
        'let fired = 0;',
        'setTimeout(() => { fired = time() - t0; }, 1500);',
        'await sleep(2000);',
        'print(fired.toFixed(3));',
        'print(new Date().getTime() === Date.now());',
      ].join('\n'),
    });
    expect(out.error).toBeNull();
    expect(out.output).toEqual(['3600 3600000 3600000', '3601.500', 'true']);
    expect(world.kernel.now - before).toBe(3_602_000_000);
  });

  it('an error shows its message and its line', async () => {
    const world = buildSandboxWorld(1);
    const runtime = await runCellInProcess(world, { from: 'app', source: "await redis.set('a', 1);\n\nconst user = null;\nprint(user.name);" });
    expect(runtime.error).toMatchObject({ name: 'TypeError', line: 4, column: 11 });
    expect(runtime.error!.message).toMatch(/null/);

    const reply = await runCellInProcess(world, { from: 'app', source: "await redis.set('h', 1);\nawait redis.hget('h', 'f');" });
    expect(reply.error).toMatchObject({ name: 'ReplyError', message: 'WRONGTYPE Operation against a key holding the wrong kind of value', line: 2 });

    // A failed command points at the line of the cell that awaits it: in a function of the cell's, in a pipeline, or awaited later.
    const inFunction = await runCellInProcess(world, { from: 'app', source: "async function read(k) {\n  return await redis.hget(k, 'f');\n}\nawait read('h');" });
    expect(inFunction.error).toMatchObject({ name: 'ReplyError', line: 2 });
    const piped = await runCellInProcess(world, { from: 'app', source: "const tx = redis.multi();\ntx.call('nosuchcommand');\n\nawait tx.exec();" });
    expect(piped.error).toMatchObject({ message: expect.stringMatching(/^EXECABORT/), line: 4 });
    const later = await runCellInProcess(world, { from: 'app', source: "const p = redis.hget('h', 'f');\nawait sleep(5);\nprint('still here');\nawait p;" });
    expect(later).toMatchObject({ output: ['still here'], error: { name: 'ReplyError', line: 4 } });
    const caught = await runCellInProcess(world, { from: 'app', source: "const why = await redis.hget('h', 'f').catch((e) => e.message);\nprint(why);" });
    expect(caught).toMatchObject({ output: ['WRONGTYPE Operation against a key holding the wrong kind of value'], error: null });

    const syntax = await runCellInProcess(world, { from: 'app', source: "const a = 1;\nif (a) {\n  print(a;\n}\n" });
    expect(syntax.error).toMatchObject({ name: 'SyntaxError', line: 3 });

    const unclosed = await runCellInProcess(world, { from: 'app', source: 'for (;;) {\n  print(1);\n' });
    expect(unclosed.error).toMatchObject({ name: 'SyntaxError', line: 3, message: 'The cell ends too soon: a bracket, a brace, a parenthesis or a quote is still open.' });

    const quote = await runCellInProcess(world, { from: 'app', source: "print(1);\nprint('abc);\nprint(2);" });
    expect(quote.error).toMatchObject({ name: 'SyntaxError', line: 2, message: 'unexpected end of string' });

    const thrown = await runCellInProcess(world, { from: 'app', source: "throw 'out of stock';" });
    expect(thrown.error).toMatchObject({ message: 'Uncaught "out of stock"', line: null });
  });

  it('keeps the newest lines of a cell that prints in a loop, or prints huge strings, and says how many went', async () => {
    const world = buildSandboxWorld(1);
    const loop = await runCellInProcess(world, { from: 'app', source: 'for (let i = 0; i < 100000; i++) print(i);' });
    expect(loop.output.length + loop.dropped).toBe(100_000);
    expect(loop.output.length).toBeLessThanOrEqual(2000);
    expect(loop.output.at(-1)).toBe('99999');
    const huge = await runCellInProcess(world, { from: 'app', source: "for (let i = 0; i < 1000; i++) print(i + 'x'.repeat(1e5));" });
    expect(huge.output.length + huge.dropped).toBe(1000);
    expect(huge.output.every((line) => line.length === 10_001)).toBe(true);
    expect(huge.output.length).toBeLessThanOrEqual(2000);
    expect(huge.output.at(-1)!.startsWith('999x')).toBe(true);
  });

  it('sees no fetch, no XMLHttpRequest, no WebSocket, no process', async () => {
    const world = buildSandboxWorld(1);
    const out = await runCellInProcess(world, { from: 'app', source: 'print(typeof fetch, typeof XMLHttpRequest, typeof WebSocket, typeof process, typeof importScripts);' });
    expect(out.output).toEqual(['undefined undefined undefined undefined undefined']);
  });

  it('stops when asked, closing its connections', async () => {
    const world = buildSandboxWorld(1);
    const stop = new AbortController();
    const run = runCellInProcess(world, {
      from: 'app',
      signal: stop.signal,
      onPrint: (text) => {
        if (text === '1000') stop.abort();
      },
      source: "for (let i = 1; ; i++) { await redis.incr('n'); if (i % 1000 === 0) print(i); }",
    });
    const out = await run;
    expect(out.stopped).toBe(true);
    expect(out.error).toBeNull();
    expect(world.clients.size).toBe(0);
    const n = Number(world.redis('redis')!.server.dbs[0]!.lookupNoTouch('n') as string);
    expect(n).toBeGreaterThanOrEqual(1000);
  });

  it('ends a cell that waits for something that will never happen', async () => {
    const world = buildSandboxWorld(1);
    const out = await runCellInProcess(world, { from: 'app', source: 'await new Promise(() => {});' });
    expect(out.error?.message).toMatch(/waiting for something the world will never do/);
  });

  it('ends a run that goes past its bound of virtual time', async () => {
    const world = buildSandboxWorld(1);
    const out = await runCellInProcess(world, { from: 'app', maxVirtualMs: 5000, source: "await redis.blpop('nothing', 0);" });
    expect(out.error?.message).toMatch(/past its limit of 5000 ms/);
    expect(world.clients.size).toBe(0);
  });

  it('fails commands on a connection that cannot be opened, with the reason', async () => {
    const world = buildSandboxWorld(1);
    const out = await runCellInProcess(world, {
      from: 'app',
      source: "const c = connect({ to: 'nowhere:6379' });\ntry { await c.ping(); } catch (e) { print(e.message); }\nconst d = connect({ to: 'redis:7777' });\ntry { await d.ping(); } catch (e) { print(e.message); }",
    });
    expect(out.error).toBeNull();
    expect(out.output[0]).toBe('no host named nowhere');
    expect(out.output[1]).toMatch(/refused/i);
  });

  it('reports plain data, and refuses a report without a name', async () => {
    const world = buildSandboxWorld(1);
    const out = await runCellInProcess(world, { from: 'app', source: "report('rates', { plain: 1.5, rows: [1, 'two', null] });\nreport('', 1);" });
    expect(out.reports).toEqual({ rates: { plain: 1.5, rows: [1, 'two', null] } });
    expect(out.error).toMatchObject({ name: 'TypeError', line: 2 });
  });
});
