/**
 * The terminal (`npm run cli`) fed lines on its standard input, next to the
 * real redis-cli fed the same lines against a real server: the output must
 * be the same bytes, in TTY (--no-raw) and raw mode, RESP2 and RESP3.
 */
import { PassThrough, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/node/cli-main.js';
import { RawConnection, startRealRedis, type RealRedis } from '../support/real-redis.js';
import { cliSkipNotice, HAVE_REAL_CLI, runRealCli } from './real-cli.js';

/** Runs our terminal with `input` piped in; resolves what it printed. */
async function ours(args: string[], input: string): Promise<{ stdout: string; stderr: string; status: number }> {
  const stdin = new PassThrough();
  let stdout = '';
  let stderr = '';
  const sink = (append: (s: string) => void) =>
    new Writable({
      write(chunk: Buffer, _enc, cb) {
        append(chunk.toString('latin1'));
        cb();
      },
    });
  stdin.end(Buffer.from(input, 'latin1'));
  const status = await runCli(args, {
    stdin,
    stdout: sink((s) => (stdout += s)),
    stderr: sink((s) => (stderr += s)),
    env: {},
  });
  return { stdout, stderr, status };
}

const SCRIPTS: Array<{ name: string; lines: string[] }> = [
  {
    name: 'strings, counters and errors',
    lines: ['SET greeting "hello world"', 'GET greeting', 'get nokey', 'INCR n', 'INCRBY n 41', 'INCR greeting', 'GET', 'NOSUCH a b', 'PING', 'ping "with arg"', 'ECHO "tab\\there"'],
  },
  {
    name: 'quoting, escapes and binary',
    lines: ['SET bin "\\x00\\xff\\r\\n\\"q\\"\\\\"', 'GET bin', "SET single 'it\\'s'", 'GET single', 'SET "unbalanced', 'SET a"b c', 'SET k "v"x', '   ', '', 'GET "\\x41\\x42"'],
  },
  {
    name: 'repeat counts',
    lines: ['3 INCR r', 'GET r', '0 INCR r', '-2 INCR r', '"" INCR r', '2x INCR r', '2'],
  },
  {
    name: 'lists and nested replies',
    lines: ['RPUSH l a b c d e f g h i j k', 'LRANGE l 0 -1', 'LRANGE l 0 0', 'LRANGE nolist 0 -1', 'LPOP l 2', 'LPOP nolist'],
  },
  {
    name: 'SELECT, MULTI and EXEC',
    lines: ['SELECT 2', 'SET x 1', 'MULTI', 'INCR x', 'SELECT 3', 'EXEC', 'GET x', 'SELECT 99', 'MULTI', 'DISCARD', 'EXEC', 'DISCARD', 'DBSIZE'],
  },
  {
    // redis-cli notices on the next command, and reconnects on the one
    // after, keeping [2] in the prompt while the new connection is in db 0.
    name: 'a connection the server closes',
    lines: ['select 2', 'client kill type normal skipme no', 'ping', 'ping', 'set x 1', 'get x', 'select 0', 'get x'],
  },
  {
    name: 'quit ends the session',
    lines: ['SET q 1', 'quit', 'GET q'],
  },
  {
    name: 'redis-cli preferences and local commands',
    lines: [':set hints', ':set nohints', ':set colors', ':foo', 'restart', 'EXIT'],
  },
];

describe.skipIf(!HAVE_REAL_CLI)(HAVE_REAL_CLI ? 'npm run cli next to redis-cli' : `npm run cli next to redis-cli (${cliSkipNotice()})`, () => {
  let real: RealRedis;

  beforeAll(async () => {
    real = await startRealRedis();
  });

  afterAll(async () => {
    await real?.stop();
  });

  /** Empties the real server (on a fresh connection: a script may kill every client). */
  async function flushReal(): Promise<void> {
    const conn = await RawConnection.open(real.port);
    await conn.command(['FLUSHALL']);
    conn.close();
  }

  for (const { name, lines } of SCRIPTS) {
    for (const flags of [['--no-raw'], ['--raw'], ['--no-raw', '-3']]) {
      it(`${name} (${flags.join(' ')})`, async () => {
        await flushReal();
        const input = lines.join('\n') + '\n';
        const theirs = runRealCli([...flags, '-p', String(real.port)], input);
        const mine = await ours([...flags, '-p', String(real.port)], input);
        expect(JSON.stringify(mine.stdout)).toBe(JSON.stringify(theirs.stdout));
        // Over real TCP a closed connection reads as EOF or as a reset, by timing.
        expect(mine.stderr).toBe(theirs.stderr.replaceAll('Connection reset by peer', 'Server closed the connection'));
        expect(mine.status).toBe(theirs.status);
      });
    }
  }

  it('runs one command given as arguments', async () => {
    for (const args of [['--no-raw', 'SET', 'k', 'v'], ['--no-raw', 'ECHO', 'a\nb'], ['GET', 'nokey'], ['--no-raw', 'LRANGE', 'k', '0', '-1'], ['-r', '3', 'INCR', 'c'], ['--no-raw', '-r', '2', 'INCR', 'c']]) {
      await flushReal();
      const theirs = runRealCli(['-p', String(real.port), ...args]);
      const mine = await ours(['-p', String(real.port), ...args], '');
      expect(JSON.stringify(mine.stdout)).toBe(JSON.stringify(theirs.stdout));
      expect(mine.status).toBe(theirs.status);
    }
  });
});
