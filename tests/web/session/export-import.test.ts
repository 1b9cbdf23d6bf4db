import { describe, expect, it } from 'vitest';
import { parseSessionText, safeScreen } from '../../../src/web/session/session-data.js';
import { digest, sessionHarness } from './session-harness.js';

async function busySession() {
  const h = sessionHarness();
  await h.load();
  const cli = h.open();
  await h.run(50);
  h.store.sendLine(cli.id, 'RPUSH list a b c');
  h.store.sendLine(cli.id, 'MULTI');
  await h.run(100);
  h.session.checkpoint('in the middle');
  return h;
}

describe('exporting and importing a session', () => {
  it('imports an exported session into another page: same world, same terminal inside MULTI, same checkpoints', async () => {
    const a = await busySession();
    const text = a.session.exportText();
    const want = digest(a.store.world);
    const hash = a.store.world.trace.hash();

    const b = sessionHarness();
    await b.load();
    b.open();
    const done = b.session.importText(text);
    await b.idle();
    expect(await done).toEqual({ ok: true });
    expect(digest(b.store.world)).toBe(want);
    expect(b.store.world.trace.hash()).toBe(hash);
    expect(b.session.getSnapshot().checkpoints.map((c) => c.label)).toEqual(['in the middle']);
    const t = b.view('t1');
    await b.run(50);
    expect(t.lines().at(-1)).toBe('redis:6379(TX)>');
    // The import was saved: a reload finds it.
    expect([...b.kv.data.keys()]).toContain('meta');
  });

  it('refuses a foreign or damaged file with a clear message and changes nothing', async () => {
    const b = await busySession();
    const before = { digest: digest(b.store.world), terminals: b.store.listTerminals(), snapshot: b.session.getSnapshot() };
    const exported = JSON.parse(b.session.exportText()) as Record<string, unknown>;
    const cases: Array<[string, RegExp]> = [
      ['not json at all', /not JSON/],
      ['{"hello": "world"}', /not a Redis workbook session/],
      [JSON.stringify({ ...exported, version: 7 }), /version 7/],
      [JSON.stringify({ ...exported, activeBranch: 'nope' }), /active branch is not among the branches/],
      [JSON.stringify({ ...exported, branches: 'lots' }), /damaged: branches/],
      [JSON.stringify({ ...exported, logs: {} }), /has no action log/],
    ];
    for (const [text, message] of cases) {
      const r = await b.session.importText(text);
      expect(r.ok).toBe(false);
      expect(r.ok ? '' : r.message).toMatch(message);
    }
    expect(digest(b.store.world)).toBe(before.digest);
    expect(b.store.listTerminals()).toEqual(before.terminals);
    expect(b.session.getSnapshot().checkpoints).toEqual(before.snapshot.checkpoints);
  });

  it('imports a session whose world replays to another point (a changed workbook), and says so', async () => {
    const a = await busySession();
    const exported = JSON.parse(a.session.exportText()) as { branches: Array<{ head: { eventsRun: number } }> };
    exported.branches[0]!.head.eventsRun += 1_000_000;
    const b = sessionHarness();
    await b.load();
    const done = b.session.importText(JSON.stringify(exported));
    await b.idle();
    expect(await done).toEqual({ ok: true });
    expect(b.session.getSnapshot().notice?.text).toMatch(/^The world was rebuilt, but not to exactly the same point/);
    expect(b.store.listTerminals().map((t) => t.id)).toEqual(['t1']);
  });

  it('shows a saved screen with only the terminal own escape sequences', () => {
    const screen = 'redis:6379> GET k\r\n\x1b[2m(dim)\x1b[22m\x1b]0;title\x07\x1b]52;c;SGVsbG8=\x07\x1b[5n\r\n\x1b[1A\r\x1b[J';
    expect(safeScreen(screen)).toBe('redis:6379> GET k\r\n\x1b[2m(dim)\x1b[22m^[]0;title^G^[]52;c;SGVsbG8=^G^[[5n\r\n\x1b[1A\r\x1b[J');
  });

  it('cleans what an imported file would show', () => {
    const h = { branches: [{ id: 'b1', name: 'main', seed: 1, startUs: 0, parent: null, forkedFrom: null }] };
    const moment = {
      actionCount: 0,
      eventsRun: 0,
      nowUs: 0,
      active: 't1',
      clock: { speed: 1, paused: false },
      terminals: [
        {
          id: 't1',
          title: '<img src=x onerror=alert(1)>',
          choice: { kind: 'shell', host: 'redis' },
          screen: 'ok\x1b]52;c;eA==\x07',
          ended: false,
          history: ['GET a', 'GET \x1b[31mb'],
          program: null,
          worldIds: [],
        },
      ],
    };
    const text = JSON.stringify({
      format: 'redis-workbook-session',
      version: 1,
      savedAt: 'now',
      activeBranch: 'b1',
      branches: [{ ...h.branches[0], head: moment }],
      logs: { b1: [] },
      checkpoints: [],
      state: {},
      nextId: 2,
    });
    const r = parseSessionText(text);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const t = r.session.branches[0]!.head.terminals[0]!;
    expect(t.screen).toBe('ok^[]52;c;eA==^G');
    expect(t.history).toEqual(['GET a']);
    // The title is kept as text; React shows it inert.
    expect(t.title).toBe('<img src=x onerror=alert(1)>');
  });

  it('keeps a session in which a line of 200 KB was pasted, leaving that line out of the history', async () => {
    const a = sessionHarness();
    await a.load();
    const cli = a.open();
    await a.run(50);
    const big = 'v'.repeat(200 * 1024);
    cli.session.input(`SET big ${big}\rPING\r`);
    await a.run(100);
    const b = sessionHarness();
    await b.load();
    const done = b.session.importText(a.session.exportText());
    await b.idle();
    expect(await done).toEqual({ ok: true });
    expect(b.store.terminal(cli.id)!.history()).toEqual(['PING']);
    expect(digest(b.store.world)).toBe(digest(a.store.world));
  });

  it('refuses a crafted file whose numbers no world can run, and the page keeps a working sandbox', async () => {
    const b = await busySession();
    const before = digest(b.store.world);
    const exported = JSON.parse(b.session.exportText()) as {
      activeBranch: string;
      branches: Array<{ id: string; startUs: number; head: { nowUs: number; eventsRun: number } }>;
      logs: Record<string, Array<{ action: { kind: string; profile?: unknown } }>>;
    };
    const branch = exported.activeBranch;
    const hostAt = exported.logs[branch]!.findIndex((a) => a.action.kind === 'addHost');
    expect(hostAt).toBeGreaterThanOrEqual(0);
    const withProfile = (profile: unknown) => {
      const copy = structuredClone(exported);
      copy.logs[branch]![hostAt]!.action.profile = profile;
      return JSON.stringify(copy);
    };
    const machine = { name: 'odd', cpuSpeed: 1, forkMsPerGb: 15, disk: 'ssd', memoryBytes: 2 ** 30 };
    const ahead = structuredClone(exported);
    const head = ahead.branches.find((x) => x.id === branch)!.head;
    head.nowUs = ahead.branches[0]!.startUs + 10 * 365 * 24 * 3600 * 1e6;
    head.eventsRun = 1e12;
    const cases: Array<[string, RegExp]> = [
      [withProfile({ ...machine, disk: 'tape' }), /damaged: logs\..*profile/],
      [withProfile({ ...machine, cpuSpeed: 0 }), /damaged: logs\..*profile/],
      [withProfile('mainframe'), /damaged: logs\..*profile/],
      [JSON.stringify(ahead), /damaged: branches\.0\.head\.eventsRun/],
      [JSON.stringify({ ...ahead, branches: ahead.branches.map((x) => ({ ...x, head: { ...x.head, eventsRun: 10 } })) }), /more than a year after the world began/],
    ];
    for (const [text, message] of cases) {
      const r = await b.session.importText(text);
      expect(r.ok ? '' : r.message).toMatch(message);
    }
    expect(b.session.getSnapshot().busy).toBeNull();
    expect(digest(b.store.world)).toBe(before);
    const cli = b.view(b.store.listTerminals()[0]!.id);
    b.store.sendLine(cli.id, 'EXEC');
    await b.run(100);
    expect(cli.lines().slice(-3)).toEqual(['redis:6379(TX)> EXEC', '(empty array)', 'redis:6379>']);
  });

  it('shows a rebuild under way with its progress, and Cancel leaves the page as it was', async () => {
    const a = await busySession();
    for (let i = 0; i < 200; i++) a.store.sendLine(a.store.listTerminals()[0]!.id, `SET k${i} ${i}`);
    await a.run(2000);
    const text = a.session.exportText();
    // A wall clock that moves on at each reading: the replay takes many slices.
    const b = sessionHarness({ wallStepMs: 4 });
    await b.load();
    b.open();
    await b.run(50);
    const before = digest(b.store.world);
    const importing = b.session.importText(text);
    for (let i = 0; i < 100 && b.session.getSnapshot().busy === null; i++) await b.run(16);
    expect(b.session.getSnapshot().busy?.label).toBe('Importing the session');
    b.session.cancel();
    await b.idle();
    const r = await importing;
    expect(r.ok ? '' : r.message).toMatch(/cancelled/);
    expect(b.session.getSnapshot().busy).toBeNull();
    expect(digest(b.store.world)).toBe(before);
    const t = b.view(b.store.listTerminals()[0]!.id);
    b.store.sendLine(t.id, 'PING');
    await b.run(100);
    expect(t.lines().slice(-2)).toEqual(['PONG', 'redis:6379>']);
  });
});
