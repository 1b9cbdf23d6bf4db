/**
 * The page's terminal next to the real redis-cli 7.0 in a pseudo-terminal
 * (util-linux `script`), where only a terminal shows what happens.
 *
 * `help` prints the same lines, each short enough for a narrow pane.
 *
 * Ctrl-C in MONITOR: the real one prints the terminal's echo of Ctrl-C,
 * then how long the command ran, as it does after any command of half a
 * second or more (redis-cli.c, repl(): "(%.2fs)"), and gives the prompt
 * back: "OK", "^C(0.62s)", prompt. The page's terminal must do the same,
 * the time being the virtual time MONITOR ran.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRealRedis, type RealRedis } from '../../support/real-redis.js';
import { cliSkipNotice, HAVE_REAL_CLI, REDIS_CLI_BIN } from '../../node/real-cli.js';
import { storeHarness } from '../store-harness.js';

const SCRIPT = '/usr/bin/script';
const HAVE_PTY = existsSync(SCRIPT);

/** The lines shown on a terminal, once cursor requests and line redraws are taken out. */
function plainLines(raw: string): string[] {
  const kept = raw.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '').split(/\r?\n/);
  return kept.map((l) => l.split('\r').at(-1)!.trimEnd()).filter((l) => l !== '');
}

/** The real redis-cli in a pseudo-terminal, driven by `drive` once it shows its prompt; what it showed. */
async function realCli(port: number, drive: (type: (bytes: string) => void, until: (done: (out: string) => boolean) => Promise<void>) => Promise<void>): Promise<string[]> {
  const child = spawn(SCRIPT, ['-q', '-f', '-e', '-c', `${REDIS_CLI_BIN} -p ${port}`, '/dev/null'], { stdio: 'pipe', env: { ...process.env, TERM: 'xterm' } });
  let out = '';
  const changed: Array<() => void> = [];
  child.stdout.on('data', (d: Buffer) => {
    const s = d.toString('latin1');
    out += s;
    // linenoise asks where the cursor is; a terminal answers.
    if (s.includes('\x1b[6n')) child.stdin.write('\x1b[1;1R');
    for (const f of changed.splice(0)) f();
  });
  const until = async (done: (out: string) => boolean) => {
    while (!done(out)) await new Promise<void>((r) => changed.push(r));
  };
  try {
    await until((o) => o.endsWith('> '));
    await drive((bytes) => child.stdin.write(bytes), until);
  } finally {
    child.kill();
  }
  return plainLines(out);
}

describe.skipIf(!HAVE_REAL_CLI || !HAVE_PTY)(HAVE_REAL_CLI ? 'Ctrl-C in MONITOR next to the real redis-cli' : `Ctrl-C in MONITOR (${cliSkipNotice()})`, () => {
  let real: RealRedis;
  beforeAll(async () => {
    real = await startRealRedis();
  });
  afterAll(async () => {
    await real?.stop();
  });

  it('echoes ^C, prints how long MONITOR ran and gives the prompt back, as the real one does', async () => {
    const theirs = await realCli(real.port, async (type, until) => {
      type('monitor\r');
      await until((o) => o.includes('OK\r\n'));
      // More than half a second, so that redis-cli prints how long MONITOR ran.
      await new Promise((r) => setTimeout(r, 700));
      type('\x03');
      await until((o) => /\^C[^]*> $/.test(o));
    });
    const after = theirs.slice(theirs.lastIndexOf('OK'));
    expect(after).toHaveLength(3);
    expect(after[1]).toMatch(/^\^C\(\d+\.\d\ds\)$/);
    expect(after[2]).toMatch(/^127\.0\.0\.1:\d+>$/);

    const h = storeHarness();
    const t = h.open(undefined, 80);
    await h.run(50);
    t.session.input('MONITOR\r');
    await h.run(100);
    await h.run(1500);
    t.session.input('\x03');
    await h.run(100);
    const ours = t.lines();
    const mine = ours.slice(ours.lastIndexOf('OK'));
    expect(mine).toHaveLength(3);
    expect(mine[1]).toMatch(/^\^C\(\d+\.\d\ds\)$/);
    expect(mine[2]).toBe('redis:6379>');
  });

  it('prints the same help, every line of it fitting a pane of 62 columns', async () => {
    const theirs = await realCli(real.port, async (type, until) => {
      type('help\r');
      await until((o) => /redisclirc\r\n[^]*> $/.test(o));
    });
    const want = theirs.slice(theirs.findIndex((l) => l.startsWith('redis-cli ')), theirs.findIndex((l) => l.endsWith('~/.redisclirc')) + 1);
    expect(want.length).toBeGreaterThan(5);

    const h = storeHarness();
    const t = h.open(undefined, 62);
    await h.run(50);
    t.session.input('help\r');
    await h.run(100);
    // The model screen wraps at 62 columns as xterm does: a line too long would show as two.
    expect(t.lines().filter((l) => l !== '').slice(1, -1)).toEqual(want);
  });
});
