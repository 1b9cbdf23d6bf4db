/**
 * `npm run cli` runs a simulated world: a machine "redis" with its
 * redis-server, a terminal connected through the simulated network, and a
 * shell on the machine behind :shell and !.
 */
import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/node/cli-main.js';

/** The terminal on a (fake) TTY, as a learner at a keyboard uses it: keys in, the screen's bytes out. */
function atKeyboard(args: string[]) {
  const stdin = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => stdin });
  let screen = '';
  let errors = '';
  const stdout = Object.assign(
    new Writable({
      write(chunk: Buffer, _enc, cb) {
        screen += chunk.toString('latin1');
        cb();
      },
    }),
    { isTTY: true, columns: 80 },
  );
  const stderr = new Writable({
    write(chunk: Buffer, _enc, cb) {
      errors += chunk.toString('latin1');
      cb();
    },
  });
  const status = runCli(args, { stdin, stdout, stderr, env: { REDISWORKBOOK_HISTFILE: '/dev/null' } });
  return { type: (keys: string) => stdin.write(keys), screen: () => screen, errors: () => errors, status };
}

async function ours(args: string[], input: string): Promise<{ stdout: string; stderr: string; status: number; ms: number }> {
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
  const t0 = performance.now();
  const status = await runCli(args, { stdin, stdout: sink((s) => (stdout += s)), stderr: sink((s) => (stderr += s)), env: {} });
  return { stdout, stderr, status, ms: performance.now() - t0 };
}

describe('npm run cli on a simulated machine', () => {
  it('reaches the machine\'s shell with ! and :shell, and comes back with :redis', async () => {
    const r = await ours(['--no-raw'], ['SET k v', '!ls /etc/redis', ':shell', 'hostname', 'redis-cli get k', 'ps -e', ':redis', 'GET k'].join('\n') + '\n');
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(
      'OK\n' +
        'redis.conf\n' +
        'redis\n' +
        '"v"\n' +
        '    PID TTY          TIME CMD\n   1000 ?        00:00:00 redis-server\n   1001 pts/0    00:00:00 bash\n   1003 pts/0    00:00:00 ps\n' +
        '"v"\n',
    );
  });

  it('waits for a shell program that takes time before the next line', async () => {
    const r = await ours(['--no-raw'], ['!sleep 0.3', 'PING', '!sim time'].join('\n') + '\n');
    expect(r.stdout).toMatch(/^PONG\n2026-01-01 00:00:00\.[3-9]\d+ UTC/);
    expect(r.ms).toBeGreaterThanOrEqual(300);
  });

  it('blocking commands wait in real time', async () => {
    const r = await ours(['--no-raw'], 'BLPOP q 1\n');
    // The time shown is the world's, which follows the wall clock: a busy machine may add a few ms.
    expect(r.stdout).toMatch(/^\(nil\)\n\(1\.0\ds\)\n$/);
    expect(r.ms).toBeGreaterThanOrEqual(950);
  });

  it('a server killed from the shell is gone for the terminal too', async () => {
    const r = await ours(['--no-raw'], ['PING', '!kill -9 1000', 'PING'].join('\n') + '\n');
    expect(r.stdout).toBe('PONG\n');
    expect(r.stderr).toBe('Error: Server closed the connection\n');
  });

  it('runs one command given as arguments, on the port asked for', async () => {
    const r = await ours(['-p', '7000', '--no-raw', 'CONFIG', 'GET', 'port'], '');
    expect(r.stdout).toBe('1) "port"\n2) "7000"\n');
    expect(r.status).toBe(0);
  });

  it('takes the world\'s seed from --seed', async () => {
    const a = await ours(['--seed', '5', '--no-raw'], '!sim time\nSPOP s\n');
    expect(a.stdout).toMatch(/^2026-01-01 00:00:00\.\d+ UTC/);
    const help = await ours(['--help'], '');
    expect(help.stdout).toContain('--seed <n>');
  });

  it("comes back after a power cycle of its own machine: the lost connection is reported, then a new one is made", async () => {
    const lines = ['!sim power-loss redis', 'PING', '!sim power-on redis', '!redis-server /etc/redis/redis.conf', 'PING', 'PING', 'GET k'];
    const r = await ours(['--no-raw'], lines.join('\n') + '\n');
    // redis-cli notices a dead connection when a command finds it closed, and reconnects for the next one.
    expect(r.stderr).toBe('Error: Server closed the connection\n');
    expect(r.stdout).toMatch(/nothing runs until you start it\nPONG\nPONG\n\(nil\)\n$/);
    expect(r.status).toBe(0);
  });

  it('at the keyboard, quit and Ctrl-C still work after its own machine lost power', async () => {
    const t = atKeyboard([]);
    t.type('!sim power-loss redis\r');
    await expect.poll(t.screen).toContain('power cut');
    t.type('PING\r');
    await expect.poll(t.errors).toBe('Error: Server closed the connection\n');
    t.type('quit\r');
    expect(await t.status).toBe(0);

    const u = atKeyboard([]);
    u.type('!sim power-loss redis\r!sim power-on redis\r');
    await expect.poll(u.screen).toContain('booted');
    u.type('BLPOP q 0\r');
    // Ctrl-C during a command leaves with status 1, as redis-cli does.
    u.type('\x03');
    expect(await u.status).toBe(1);
  });

  it('at the keyboard, takes a pasted line of 200 KB whole and sends it', async () => {
    const t = atKeyboard([]);
    await expect.poll(t.screen).toContain('127.0.0.1:6379> ');
    const value = 'v'.repeat(200 * 1024);
    // A terminal hands a paste over in pieces.
    const paste = `SET big ${value}\r`;
    for (let at = 0; at < paste.length; at += 4096) t.type(paste.slice(at, at + 4096));
    t.type('STRLEN big\r');
    await expect.poll(t.screen).toContain(`(integer) ${value.length}`);
    t.type('quit\r');
    expect(await t.status).toBe(0);
    expect(t.errors()).toBe('');
  });
});
