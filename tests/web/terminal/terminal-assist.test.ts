import { describe, expect, it } from 'vitest';
import type { LineAssist } from '../../../src/web/terminal/line-assist.js';
import type { TerminalProgram } from '../../../src/web/terminal/programs.js';
import { redisCliAssist } from '../../../src/web/terminal/redis-cli-assist.js';
import { TerminalSession } from '../../../src/web/terminal/terminal-session.js';
import { Screen } from './screen.js';
import { storeHarness } from '../store-harness.js';

/**
 * Waits for the help table's module (a dynamic import) to load; the
 * terminals waiting for it, which asked first, have drawn their line again
 * by then.
 */
const loaded = async (): Promise<void> => {
  await redisCliAssist(() => true).ready;
};

describe('completion, hints and history in the page terminals', () => {
  it('shows the grey hint in a redis-cli terminal once the help table has arrived, and completes with Tab', async () => {
    const h = storeHarness();
    const t = h.open();
    await h.run(50);
    const args = 'key value [NX|XX] [GET] [EX seconds|PX milliseconds|EXAT unix-time-seconds|PXAT unix-time-milliseconds|KEEPTTL]';
    t.session.input('SET');
    await loaded();
    expect(t.screen.grey()).toBe((' ' + args).slice(0, 80 - 'redis:6379> SET'.length));
    t.session.input(' k v');
    expect(t.screen.grey()).toBe((' ' + args.slice('key value '.length)).slice(0, 80 - 'redis:6379> SET k v'.length));
    t.session.input('\x15conf');
    expect(t.session.wantsTab()).toBe(true);
    t.session.input('\t');
    expect(t.lines()).toEqual(['redis:6379> CONFIG']);
    t.session.input('\t');
    expect(t.lines()).toEqual(['redis:6379> CONFIG GET parameter [parameter ...]']);
    t.session.input(' appendf');
    t.session.input('\t');
    t.session.input('\r');
    await h.run(100);
    expect(t.lines()).toEqual(['redis:6379> CONFIG GET appendfilename', '1) "appendfilename"', '2) "appendonly.aof"', 'redis:6379>']);
    expect(t.session.wantsTab()).toBe(false);
  });

  it(':set nohints hides the hints, :set hints shows them again', async () => {
    const h = storeHarness();
    const t = h.open();
    await h.run(50);
    await loaded();
    h.store.sendLine(t.id, ':set nohints');
    await h.run(50);
    t.session.input('GET ');
    expect(t.screen.grey()).toBe('');
    t.session.input('\x15:set hints\r');
    await h.run(50);
    t.session.input('GET ');
    expect(t.screen.grey()).toBe('key');
  });

  it('keeps the history per terminal, tells listeners of each line kept, and takes a saved one back', async () => {
    const h = storeHarness();
    const a = h.open();
    const b = h.open();
    await h.run(50);
    const told: string[][] = [];
    const off = a.session.onHistoryChange((lines) => told.push([...lines]));
    h.store.sendLine(a.id, 'SET a 1');
    h.store.sendLine(a.id, 'SET a 1');
    h.store.sendLine(a.id, 'AUTH secret');
    h.store.sendLine(a.id, '   ');
    h.store.sendLine(a.id, 'GET a');
    await h.run(200);
    expect(a.session.history()).toEqual(['SET a 1', 'GET a']);
    expect(told).toEqual([['SET a 1'], ['SET a 1', 'GET a']]);
    expect(b.session.history()).toEqual([]);
    off();
    h.store.sendLine(a.id, 'PING');
    await h.run(100);
    expect(told).toHaveLength(2);

    b.session.setHistory(['INCR n', 'GET n']);
    b.session.input('\x1b[A\x1b[A');
    expect(b.lines()[0]).toMatch(/^redis:6379> INCR n/);
    b.session.input('\x15\x12GET\r');
    await h.run(100);
    expect(b.lines()).toEqual(['redis:6379> GET n', '(nil)', 'redis:6379>']);
  });

  it('completes commands and file names in a shell on a host', async () => {
    const h = storeHarness();
    const t = h.open({ kind: 'shell', host: 'redis' });
    await h.run(50);
    // xterm.js reports a Tab key press on its own.
    t.session.input('redis-check-r');
    t.session.input('\t');
    expect(t.lines()).toEqual(['root@redis:~# redis-check-rdb']);
    expect(t.screen.col).toBe('root@redis:~# redis-check-rdb '.length);
    t.session.input('\x15ls /var/lib/re');
    t.session.input('\t');
    expect(t.lines()).toEqual(['root@redis:~# ls /var/lib/redis/']);
    t.session.input('\r');
    await h.run(100);
    expect(t.session.history()).toEqual(['ls /var/lib/redis/']);
  });

  it('shows no hint until the data behind it has arrived, then draws the line again with it', async () => {
    let arrive = (): void => {};
    let hints = false;
    const assist: LineAssist = {
      ready: new Promise<void>((resolve) => (arrive = () => ((hints = true), resolve()))),
      complete: () => ({ kind: 'lines', lines: [] }),
      hint: (line) => (hints ? ` <${line}>` : null),
    };
    const program: TerminalProgram = {
      name: 'redis-cli',
      prompt: '> ',
      start: () => Promise.resolve(),
      runLine: () => Promise.resolve({ history: true }),
      endOfInput: () => Promise.resolve({ history: false, exit: 0 }),
      interrupt: () => 'exit',
      close: () => {},
      saveState: () => ({ kind: 'redis-cli', cli: { session: null, cli: {} as never } }),
      assist: () => assist,
    };
    const session = new TerminalSession('t', 'test', () => program);
    const screen = new Screen(40);
    session.attach((text) => screen.write(text));
    session.start();
    await Promise.resolve();
    session.input('GET');
    expect(screen.grey()).toBe('');
    arrive();
    await assist.ready;
    expect(screen.grey()).toBe(' <GET>');
    expect(screen.text()).toEqual(['> GET <GET>']);
  });
});
