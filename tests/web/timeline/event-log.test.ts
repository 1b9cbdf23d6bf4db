import { describe, expect, it } from 'vitest';
import { FilteredEvents } from '../../../src/web/timeline/event-filter.js';
import { sessionHarness } from '../session/session-harness.js';

describe('the event list', () => {
  it('names the terminal behind a command and behind a fault typed in a shell', async () => {
    const h = sessionHarness();
    const cli = h.open();
    await h.run(50);
    h.store.sendLine(cli.id, 'SET greeting hello');
    await h.run(50);
    const shell = h.open({ kind: 'shell', host: 'redis' });
    await h.run(50);
    h.store.sendLine(shell.id, 'sim power-loss redis');
    await h.run(50);
    const log = h.session.eventLog;
    const set = log.entries.find((e) => e.kind === 'cmd' && e.text.includes('greeting'))!;
    expect(h.store.terminalOfWorldId(log.causeOf(set)!)).toBe(cli.id);
    const cut = log.entries.find((e) => e.kind === 'power-loss')!;
    expect(h.store.terminalOfWorldId(log.causeOf(cut)!)).toBe(shell.id);
    // The server's own housekeeping is nobody's doing.
    const boot = log.entries.find((e) => e.kind === 'spawn')!;
    expect(log.causeOf(boot)).toBeNull();
  });

  it('keeps the links of a restored world (the log follows the replay)', async () => {
    const h = sessionHarness();
    const cli = h.open();
    await h.run(50);
    h.store.sendLine(cli.id, 'SET greeting hello');
    await h.run(50);
    const cp = h.session.checkpoint()!;
    await h.session.rewind(cp.id);
    const log = h.session.eventLog;
    expect(log.world).toBe(h.store.world);
    const set = log.entries.find((e) => e.kind === 'cmd' && e.text.includes('greeting'))!;
    expect(h.store.terminalOfWorldId(log.causeOf(set)!)).toBe('t1');
  });

  it('filters by host and by kind, taking in only the entries added since the last look', async () => {
    const h = sessionHarness();
    const cli = h.open();
    await h.run(50);
    const list = new FilteredEvents(h.session.eventLog);
    list.refresh();
    const all = list.length;
    expect(all).toBe(h.session.eventLog.entries.length);

    list.setFilter({ host: null, kind: 'cmd' });
    list.refresh();
    const before = list.length;
    h.store.sendLine(cli.id, 'SET a 1');
    h.store.sendLine(cli.id, 'GET a');
    await h.run(100);
    expect(list.refresh()).toBe(true);
    expect(list.length).toBe(before + 2);
    expect(list.entry(list.length - 1)!.text).toMatch(/GET.*a/);
    expect(list.refresh()).toBe(false);

    list.setFilter({ host: 'app', kind: null });
    list.refresh();
    for (let i = 0; i < list.length; i++) {
      const e = list.entry(i)!;
      expect(e.source === 'app' || /(^|[^\w.-])app([^\w-]|$)/.test(e.text)).toBe(true);
    }
    expect(list.length).toBeGreaterThan(0);

    list.setFilter({ host: null, kind: 'group:disk' });
    list.refresh();
    const kinds = new Set(Array.from({ length: list.length }, (_, i) => list.entry(i)!.kind));
    expect([...kinds].every((k) => ['create', 'rename', 'unlink', 'truncate', 'mkdir', 'rmdir', 'fsync', 'writeback'].includes(k))).toBe(true);
    expect(list.kindsSeen.has('cmd')).toBe(true);
  });

  it('forgets the entries the trace drops, and never looks at more than it keeps', async () => {
    const h = sessionHarness();
    const trace = h.store.world.trace;
    trace.limit = 100;
    const list = new FilteredEvents(h.session.eventLog);
    for (let i = 0; i < 1000; i++) trace.add('redis', i % 2 === 0 ? 'cmd' : 'log', `entry ${i}`);
    list.setFilter({ host: 'redis', kind: 'cmd' });
    list.refresh();
    expect(list.length).toBeLessThanOrEqual(63);
    expect(list.entry(list.length - 1)!.text).toBe('entry 998');
    for (let i = 1000; i < 1100; i++) trace.add('redis', 'cmd', `entry ${i}`);
    list.refresh();
    expect(list.entry(list.length - 1)!.text).toBe('entry 1099');
    expect(list.position(0)).toBeGreaterThanOrEqual(h.session.eventLog.firstIndex);
  });
});
