/**
 * redis-cli's subscribed mode: the real redis-cli 7.0 reading lines on its
 * standard input against a real server, and the terminals' own loop
 * (RedisCliRepl, which the page and npm run cli share) against the
 * emulator, fed the same lines and the same messages, interrupted by Ctrl-C
 * at the same points. What they print must be the same bytes, formatted,
 * raw and in RESP3.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../emulator/sim/clock.js';
import { createServer } from '../../emulator/process/create-server.js';
import { InProcessLink } from '../../emulator/redis-cli/link.js';
import { RedisCliRepl } from '../../emulator/redis-cli/repl.js';
import { RawConnection, startRealRedis, type RealRedis } from '../support/real-redis.js';
import { cliSkipNotice, HAVE_REAL_CLI, REDIS_CLI_BIN } from './real-cli.js';

/**
 * A line typed, messages published while it runs, then Ctrl-C if it
 * streams. Outside subscribed mode a RESP3 UNSUBSCRIBE answers only with a
 * push, so redis-cli, which waits for a reply, hangs there until Ctrl-C
 * makes it exit: `lastInResp3` ends the RESP3 run that way.
 */
interface Step {
  line: string;
  publish?: string[][];
  interrupt?: boolean;
  lastInResp3?: boolean;
}

const STEPS: Step[] = [
  { line: 'SUBSCRIBE news "two words"', publish: [['PUBLISH', 'news', 'hello'], ['PUBLISH', 'two words', 'a\x00b\xff'], ['PUBLISH', 'nobody', 'x']], interrupt: true },
  { line: 'PING' },
  { line: 'PSUBSCRIBE n*', publish: [['PUBLISH', 'news', 'pattern']], interrupt: true },
  { line: 'SSUBSCRIBE shard', publish: [['SPUBLISH', 'shard', 'sharded']], interrupt: true },
  { line: 'SELECT 3' },
  { line: 'SUBSCRIBE again', publish: [['PUBLISH', 'again', 'x']], interrupt: true },
  { line: 'GET k' },
  { line: 'UNSUBSCRIBE', lastInResp3: true },
  { line: 'PUNSUBSCRIBE nothing' },
];

async function settle(read: () => string, quietMs = 100): Promise<void> {
  for (;;) {
    const before = read().length;
    await new Promise((r) => setTimeout(r, quietMs));
    if (read().length === before) return;
  }
}

/**
 * A streaming command runs for longer than half a second before Ctrl-C, so
 * that both print how long it took, as redis-cli does after a slow command.
 */
const STREAM_MS = 600;

/** The elapsed time redis-cli prints, whose hundredths differ from run to run. */
function maskElapsed(out: string): string {
  return out.replace(/^\(\d+\.\d\ds\)$/gm, '(elapsed)');
}

function stepsFor(resp3: boolean): Step[] {
  const last = STEPS.findIndex((s) => s.lastInResp3);
  return resp3 ? STEPS.slice(0, last + 1) : STEPS;
}

/**
 * The real redis-cli fed the steps; resolves its standard output. FAKETTY
 * makes it print as on a terminal, pushes included (--show-pushes).
 */
async function theirs(port: number, flags: string[]): Promise<string> {
  const child: ChildProcess = spawn(REDIS_CLI_BIN, [...flags, '-p', String(port)], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: flags.includes('--raw') ? process.env : { ...process.env, FAKETTY: '1' },
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString('latin1')));
  child.stdin!.on('error', () => {});
  const exited = new Promise((r) => child.once('exit', r));
  const admin = await RawConnection.open(port);
  const resp3 = flags.includes('-3');
  try {
    for (const step of stepsFor(resp3)) {
      child.stdin!.write(Buffer.from(step.line + '\n', 'latin1'));
      await settle(() => out);
      for (const argv of step.publish ?? []) await admin.command(argv);
      if (step.interrupt || (step.lastInResp3 && resp3)) {
        await new Promise((r) => setTimeout(r, STREAM_MS));
        await settle(() => out);
        child.kill('SIGINT');
        await settle(() => out);
      }
    }
    child.stdin!.end();
    await exited;
  } finally {
    admin.close();
    child.kill('SIGKILL');
  }
  return maskElapsed(out);
}

/** The terminals' loop on the emulator, fed the same steps. */
async function ours(flags: string[]): Promise<string> {
  const server = createServer({ clock: new ManualClock(Date.now() * 1000), config: { save: '' } });
  const admin = server.connect();
  let out = '';
  const repl = new RedisCliRepl({
    connect: () => new InProcessLink(server),
    output: flags.includes('--raw') ? 'raw' : 'tty',
    resp3: flags.includes('-3'),
    write: (bytes) => (out += bytes),
    writeError: (text) => (out += text),
    nowMs: () => Date.now(),
  });
  await repl.connect();
  for (const step of stepsFor(flags.includes('-3'))) {
    const running = repl.runLine(step.line);
    await new Promise((r) => setTimeout(r, 0));
    for (const argv of step.publish ?? []) server.execute(admin, argv);
    if (step.lastInResp3 && flags.includes('-3')) {
      // Ctrl-C while a command waits for its reply: redis-cli exits.
      await new Promise((r) => setTimeout(r, 10));
      expect(repl.interrupt()).toBe('exit');
      break;
    }
    if (step.interrupt) {
      await new Promise((r) => setTimeout(r, STREAM_MS));
      repl.interrupt();
    }
    await running;
  }
  return maskElapsed(out);
}

const MODES = [['--no-raw'], ['--raw'], ['--no-raw', '-3']];

describe.skipIf(!HAVE_REAL_CLI)(HAVE_REAL_CLI ? 'redis-cli subscribed mode next to the real one' : `redis-cli subscribed mode (${cliSkipNotice()})`, () => {
  // One real server per mode, so that the modes run side by side.
  const reals: RealRedis[] = [];

  beforeAll(async () => {
    reals.push(...(await Promise.all(MODES.map(() => startRealRedis()))));
  });

  afterAll(async () => {
    await Promise.all(reals.map((r) => r.stop()));
  });

  it('prints messages and leaves on Ctrl-C as redis-cli 7.0 does, formatted, raw and in RESP3', async () => {
    const runs = await Promise.all(MODES.map(async (flags, i) => ({ flags, pair: await Promise.all([theirs(reals[i]!.port, flags), ours(flags)]) })));
    for (const { flags, pair } of runs) {
      const [expected, actual] = pair;
      expect(expected, flags.join(' ')).toContain('pattern');
      expect(JSON.stringify(actual), flags.join(' ')).toBe(JSON.stringify(expected));
    }
  }, 30_000);
});
