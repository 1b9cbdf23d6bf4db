/**
 * `npm run server`: the emulator behind TCP. Most tests run the server in
 * this process on a free port; one starts the real entry point as a child
 * process. Where the real redis-server is here, malformed input is sent to
 * both and the answers (and whether the connection closed) must agree.
 */
import { spawn, spawnSync } from 'node:child_process';
import { Socket } from 'node:net';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runServer, type RunningServer } from '../../src/node/server-main.js';
import { closeEarly, listenEarly } from '../../src/node/tcp-server.js';
import { freePort, RawConnection, startRealRedis, type RealRedis } from '../support/real-redis.js';
import { HAVE_REAL_REDIS } from '../differential/availability.js';
import { HAVE_REAL_CLI, REDIS_CLI_BIN } from './real-cli.js';

const ROOT = join(import.meta.dirname, '..', '..');

/**
 * Sends bytes on a new connection and collects what comes back until the
 * server closes the connection or is quiet for `quietMs`.
 */
function exchange(port: number, chunks: string[], quietMs = 300): Promise<{ data: string; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const s = new Socket();
    let data = '';
    let timer: ReturnType<typeof setTimeout> | null = null;
    const done = (closed: boolean): void => {
      if (timer) clearTimeout(timer);
      s.destroy();
      resolve({ data, closed });
    };
    const arm = (): void => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => done(false), quietMs);
    };
    s.on('data', (d) => {
      data += d.toString('latin1');
      arm();
    });
    s.on('end', () => done(true));
    s.on('error', reject);
    s.connect(port, '127.0.0.1', () => {
      for (const c of chunks) s.write(c, 'latin1');
      arm();
    });
  });
}

/** Runs a program without blocking the event loop; resolves its exit status and output. */
function runTool(bin: string, args: string[], input?: string): Promise<{ status: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { stdio: ['pipe', 'pipe', 'ignore'] });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('latin1')));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout }));
    child.stdin.end(input ?? '');
  });
}

function bulkCommand(argv: string[]): string {
  let out = `*${argv.length}\r\n`;
  for (const a of argv) out += `$${a.length}\r\n${a}\r\n`;
  return out;
}

/** Malformed or unusual input, answered the same way by both servers. */
const PROTOCOL_CASES: Array<{ name: string; bytes: string }> = [
  { name: 'a bulk length that is not a number', bytes: '*2\r\n$3\r\nGET\r\n$x\r\n' },
  { name: 'a missing dollar', bytes: '*2\r\n$3\r\nGET\r\n:1\r\n' },
  { name: 'a multibulk length that is not a number', bytes: '*x\r\n' },
  { name: 'a multibulk length out of range', bytes: '*99999999999\r\n' },
  { name: 'a negative bulk length', bytes: '*1\r\n$-1\r\n' },
  { name: 'a bulk length over 512MB', bytes: '*1\r\n$536870913\r\n' },
  { name: 'unbalanced quotes in an inline command', bytes: 'SET k "abc\r\n' },
  { name: 'inline commands with quotes and escapes', bytes: 'SET k "a\\x00b\\n"\r\nGET k\nEXISTS k\r\n' },
  { name: 'empty inline lines and an empty multibulk', bytes: '\r\n\n*0\r\n*-1\r\nPING\r\n' },
  { name: 'a command after a protocol error is not run', bytes: '*1\r\n$4\r\nPING\r\n*1\r\n$x\r\nPING\r\n' },
  { name: 'binary keys', bytes: bulkCommand(['SET', '\x00\xff\r\n', 'v']) + bulkCommand(['GET', '\x00\xff\r\n']) },
  { name: 'QUIT closes after its reply', bytes: 'PING\r\nQUIT\r\nPING\r\n' },
  { name: 'an unknown command', bytes: bulkCommand(['NOPE', 'a']) },
];

describe('npm run server', () => {
  let server: RunningServer;
  let port: number;
  let real: RealRedis | null = null;
  let log = '';

  beforeAll(async () => {
    port = await freePort();
    const r = await runServer(['--port', String(port), '--save', ''], { stdout: (t) => (log += t) });
    if (typeof r === 'number') throw new Error(`the server did not start: ${log}`);
    server = r;
    if (HAVE_REAL_REDIS) real = await startRealRedis();
  });

  afterAll(async () => {
    await server?.shutdown();
    await real?.stop();
  });

  it('logs its start like redis-server', () => {
    const lines = log.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^\d+:C \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d\.\d{3} # oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo$/);
    expect(log).toContain(`* Running mode=standalone, port=${port}.`);
    expect(lines.at(-1)).toMatch(/^\d+:M .* \* Ready to accept connections$/);
  });

  it('answers pipelined commands in order, in RESP', async () => {
    let bytes = '';
    for (let i = 0; i < 200; i++) bytes += bulkCommand(['SET', `k${i}`, `v${i}`]) + bulkCommand(['GET', `k${i}`]);
    const { data, closed } = await exchange(port, [bytes]);
    let expected = '';
    for (let i = 0; i < 200; i++) expected += `+OK\r\n$${`v${i}`.length}\r\nv${i}\r\n`;
    expect(data).toBe(expected);
    expect(closed).toBe(false);
  });

  it('puts together a command that arrives a byte at a time', async () => {
    const cmd = bulkCommand(['SET', 'split', 'value']) + 'GET split\r\n';
    const { data } = await exchange(port, cmd.split(''));
    expect(data).toBe('+OK\r\n$5\r\nvalue\r\n');
  });

  it('round-trips a 10 MB value', async () => {
    const value = 'x'.repeat(5 * 1024 * 1024) + '\x00\xff'.repeat(2.5 * 1024 * 1024);
    const c = await RawConnection.open(port);
    try {
      expect(await c.commandRaw(['SET', 'big', value])).toBe('+OK\r\n');
      const got = await c.commandRaw(['GET', 'big']);
      expect(got.length).toBe(value.length + `$${value.length}\r\n\r\n`.length);
      expect(got === `$${value.length}\r\n${value}\r\n`).toBe(true);
    } finally {
      c.close();
    }
  }, 30_000);

  it('survives a command with a million arguments', async () => {
    const n = 1_000_001;
    const parts = [`*${n}\r\n$4\r\nLLEN\r\n`];
    const arg = '$1\r\na\r\n';
    const chunk = arg.repeat(10_000);
    for (let i = 0; i < 100; i++) parts.push(chunk);
    const { data, closed } = await exchange(port, [...parts, 'PING\r\n'], 2000);
    expect(data).toBe("-ERR wrong number of arguments for 'llen' command\r\n+PONG\r\n");
    expect(closed).toBe(false);
  });

  it('forgets a client that vanishes in the middle of a command', async () => {
    const s = new Socket();
    await new Promise<void>((resolve) => s.connect(port, '127.0.0.1', resolve));
    const addr = `127.0.0.1:${s.localPort}`;
    const connected = () => [...server.redis.clients.values()].some((c) => c.address.addr === addr);
    s.write('*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$100000\r\n' + 'y'.repeat(50_000));
    for (let i = 0; i < 50 && !connected(); i++) await new Promise((r) => setTimeout(r, 20));
    expect(connected()).toBe(true);
    s.destroy();
    for (let i = 0; i < 50 && connected(); i++) await new Promise((r) => setTimeout(r, 20));
    expect(connected()).toBe(false);
    const { data } = await exchange(port, ['EXISTS k\r\n']);
    expect(data).toBe(':0\r\n');
  });

  it('holds back a client that does not read its replies, then serves it in full', async () => {
    const value = 'v'.repeat(1024 * 1024);
    const c = await RawConnection.open(port);
    await c.command(['SET', 'slow', value]);
    c.close();
    const count = 300;
    const expected = count * (value.length + `$${value.length}\r\n\r\n`.length);
    const s = new Socket();
    await new Promise<void>((resolve) => s.connect(port, '127.0.0.1', resolve));
    s.pause();
    s.write(bulkCommand(['GET', 'slow']).repeat(count));
    await new Promise((r) => setTimeout(r, 300));
    // Everyone else is still served while it lags.
    expect((await exchange(port, ['PING\r\n'])).data).toBe('+PONG\r\n');
    let received = 0;
    let bad = false;
    await new Promise<void>((resolve) => {
      s.on('data', (d: Buffer) => {
        if (received === 0 && d.toString('latin1', 0, 10) !== '$1048576\r\n') bad = true;
        received += d.length;
        if (received >= expected) resolve();
      });
      s.resume();
    });
    s.destroy();
    expect(bad).toBe(false);
    expect(received).toBe(expected);
  });

  it('serves many clients at once', async () => {
    const clients = await Promise.all(Array.from({ length: 100 }, () => RawConnection.open(port)));
    try {
      await Promise.all(clients.map(async (c) => {
        for (let i = 0; i < 20; i++) await c.command(['INCR', 'counter']);
      }));
      const c = clients[0]!;
      expect(await c.commandRaw(['GET', 'counter'])).toBe('$4\r\n2000\r\n');
    } finally {
      for (const c of clients) c.close();
    }
  });

  for (const { name, bytes } of PROTOCOL_CASES) {
    it.skipIf(!HAVE_REAL_REDIS)(`answers ${name} like redis-server`, async () => {
      const [ours, theirs] = await Promise.all([exchange(port, [bytes]), exchange(real!.port, [bytes])]);
      expect(JSON.stringify(ours.data)).toBe(JSON.stringify(theirs.data));
      expect(ours.closed).toBe(theirs.closed);
      // The server is still there for everyone else.
      expect((await exchange(port, ['PING\r\n'])).data).toBe('+PONG\r\n');
    });
  }

  // The server runs in this process: the tools run asynchronously so that it can answer them.
  it.skipIf(!HAVE_REAL_CLI)('works with redis-cli', async () => {
    const run = (args: string[], input?: string) => runTool(REDIS_CLI_BIN, ['-p', String(port), ...args], input);
    expect((await run(['SET', 'cli', 'hello world'])).stdout).toBe('OK\n');
    expect((await run(['--no-raw', 'GET', 'cli'])).stdout).toBe('"hello world"\n');
    expect((await run(['GET', 'cli'])).stdout).toBe('hello world\n');
    expect((await run([], 'SET a 1\nINCR a\nGET nope\n')).stdout).toBe('OK\n2\n\n');
  });

  it.skipIf(spawnSync('redis-benchmark', ['--version']).status !== 0)('works with redis-benchmark', async () => {
    const r = await runTool('redis-benchmark', ['-p', String(port), '-n', '2000', '-c', '10', '-P', '4', '-t', 'set,get', '-q']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/SET: [\d.]+ requests per second/);
    expect(r.stdout).toMatch(/GET: [\d.]+ requests per second/);
  });
});

describe('npm run server with always-show-logo yes', () => {
  // Redis's Tcl suite starts servers with always-show-logo yes and waits for
  // " PID: <pid>" in their output before it talks to them.
  it('shows the logo with its pid and port once the port is bound', async () => {
    const port = await freePort();
    let log = '';
    // Whether another program could take the port at the moment the pid shows.
    let portFreeAtPid: boolean | null = null;
    const stdout = (t: string): void => {
      log += t;
      if (!t.includes(' PID: ')) return;
      const other = listenEarly(['127.0.0.1'], port);
      portFreeAtPid = other !== null;
      closeEarly(other);
    };
    const r = await runServer(['--port', String(port), '--save', '', '--always-show-logo', 'yes'], { stdout });
    if (typeof r === 'number') throw new Error(`the server did not start: ${log}`);
    try {
      expect(log).toMatch(new RegExp(`\n {4}Port: ${port}\n {4}PID: ${process.pid}\n`));
      expect(log).toContain('Running in standalone mode');
      expect(log).not.toContain('Running mode=');
      expect(portFreeAtPid).toBe(false);
      expect(log.indexOf(` PID: ${process.pid}`)).toBeLessThan(log.indexOf('Ready to accept connections'));
    } finally {
      await r.shutdown();
    }
  });

  it('says it is ready to accept connections only once its files are loaded, as redis-server does', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ready-'));
    try {
      const port = await freePort();
      const first = await runServer(['--port', String(port), '--dir', dir, '--save', '', '--enable-debug-command', 'yes'], { stdout: () => undefined });
      if (typeof first === 'number') throw new Error('the server did not start');
      const c = await RawConnection.open(port);
      expect(await c.commandRaw(['DEBUG', 'POPULATE', '2000'])).toBe('+OK\r\n');
      expect(await c.commandRaw(['SAVE'])).toBe('+OK\r\n');
      c.close();
      await first.shutdown();

      let log = '';
      // 2,000 keys at 500 us each: a second of loading, in which clients get -LOADING.
      const r = await runServer(['--port', String(port), '--dir', dir, '--save', '', '--key-load-delay', '500'], { stdout: (t) => (log += t) });
      if (typeof r === 'number') throw new Error(`the server did not start: ${log}`);
      try {
        for (let i = 0; i < 600 && !log.includes('Ready to accept connections'); i++) await new Promise((res) => setTimeout(res, 50));
        const loaded = log.indexOf('DB loaded from disk');
        expect(loaded).toBeGreaterThan(0);
        expect(log.indexOf('Ready to accept connections')).toBeGreaterThan(loaded);
        expect(log.split('Ready to accept connections').length).toBe(2);
      } finally {
        await r.shutdown();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('shows its pid before it loads its files, so a server that cannot load has shown it too', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'logo-'));
    try {
      writeFileSync(join(dir, 'dump.rdb'), 'REDIS0010 not a snapshot');
      const port = await freePort();
      let log = '';
      const r = await runServer(['--port', String(port), '--dir', dir, '--always-show-logo', 'yes'], { stdout: (t) => (log += t) });
      if (typeof r !== 'number') await r.shutdown();
      expect(r).toBe(1);
      expect(log).toContain(`    PID: ${process.pid}\n`);
      expect(log.indexOf(` PID: ${process.pid}`)).toBeLessThan(log.indexOf('Unrecoverable error'));
      // Its port was its own while it loaded, and is let go when it gives up.
      const again = listenEarly(['127.0.0.1'], port);
      expect(again).not.toBeNull();
      closeEarly(again);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('npm run server with a unix socket', () => {
  it('serves clients on the unixsocket path too, named "<path>:0", and removes the socket when it stops', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'unixsocket-'));
    const path = join(dir, 'socket');
    // A stale socket file from an earlier run is replaced, as Redis unlinks it first.
    writeFileSync(path, '');
    try {
      const port = await freePort();
      let log = '';
      const r = await runServer(['--port', String(port), '--save', '', '--unixsocket', path], { stdout: (t) => (log += t) });
      if (typeof r === 'number') throw new Error(`the server did not start: ${log}`);
      try {
        expect(log).toContain(`The server is now ready to accept connections at ${path}`);
        const reply = await new Promise<string>((resolve, reject) => {
          const s = new Socket();
          let data = '';
          s.on('data', (d) => {
            data += d.toString('latin1');
            if (data.startsWith('+PONG\r\n$') && data.endsWith('\r\n') && data.split('\r\n').length >= 4) {
              s.destroy();
              resolve(data);
            }
          });
          s.on('error', reject);
          s.connect(path, () => s.write(bulkCommand(['PING']) + bulkCommand(['CLIENT', 'INFO'])));
        });
        expect(reply).toContain(`addr=${path}:0 laddr=${path}:0 `);
        // networking.c's catClientInfoString: a unix socket client has the U flag.
        expect(reply).toMatch(/ flags=U /);
        // The TCP port still serves.
        expect((await exchange(port, [bulkCommand(['PING'])])).data).toBe('+PONG\r\n');
      } finally {
        await r.shutdown();
      }
      expect(existsSync(path)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('npm run server as a process', () => {
  it('starts, serves, and shuts down cleanly on SIGTERM', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/node/server.ts'), '--port', String(port), '--save', ''], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      for (let i = 0; i < 200 && !out.includes('Ready to accept connections'); i++) await new Promise((r) => setTimeout(r, 50));
      expect(out).toContain('Ready to accept connections');
      expect((await exchange(port, ['PING\r\n'])).data).toBe('+PONG\r\n');
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(out).toMatch(/\d+:signal-handler \(\d+\) Received SIGTERM scheduling shutdown\.\.\./);
      expect(out).toContain('# User requested shutdown...');
      expect(out).toContain('# Redis is now ready to exit, bye bye...');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  it('prints its version like redis-server', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src/node/server.ts'), '--version'], { cwd: ROOT, encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^Redis server v=7\.0\.15 sha=[0-9a-f]{8}:0 malloc=\S+ bits=64 build=[0-9a-f]+\n$/);
  });
});
