/**
 * The limits a server holds and the clock it keeps, through `npm run
 * server` and redis-server 7.0.15 side by side: the same input to both,
 * the same answers, the same closed connections and the same log lines.
 * Skipped, with a notice, when no real server is installed.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createServer, Socket, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runServer, type RunningServer } from '../../src/node/server-main.js';
import { freePort, RawConnection, REDIS_SERVER_BIN, startRealRedis, type RealRedis } from '../support/real-redis.js';
import { HAVE_REAL_REDIS, skipNotice } from './availability.js';
import { Peer } from '../support/peer.js';
import { StatusReply, type ErrorReply } from '../../emulator/resp/reply.js';

if (!HAVE_REAL_REDIS) console.warn(`\n!!! limits: ${skipNotice()}\n`);

export interface Side {
  name: 'real' | 'emulator';
  port: number;
  /** The server's log so far. */
  log(): string;
  /** The OS pid of the server process. */
  pid: number;
  stop(): Promise<void>;
}

export async function startRealSide(args: string[] = []): Promise<Side> {
  const r: RealRedis = await startRealRedis(args);
  return { name: 'real', port: r.port, pid: r.process.pid!, log: () => readFileSync(join(r.dir, 'redis.log'), 'latin1'), stop: () => r.stop() };
}

export async function startEmulatorSide(args: string[] = []): Promise<Side & { running: RunningServer }> {
  const dir = mkdtempSync(join(tmpdir(), 'rw-limits-'));
  const port = await freePort();
  let log = '';
  const cwd = process.cwd();
  const r = await runServer(['--port', String(port), '--dir', dir, '--save', '', ...args], { stdout: (t) => (log += t) }).finally(() =>
    process.chdir(cwd),
  );
  if (typeof r === 'number') throw new Error(`npm run server did not start:\n${log}`);
  return {
    name: 'emulator',
    port,
    pid: process.pid,
    running: r,
    log: () => log,
    stop: async () => {
      await r.shutdown();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Both servers with the same arguments. */
async function both(args: string[] = []): Promise<Side[]> {
  return Promise.all([startRealSide(args), startEmulatorSide(args)]);
}

/** INFO's fields, by name. */
async function info(c: RawConnection, section: string): Promise<Map<string, string>> {
  const text = String(await c.command(['INFO', section]));
  const out = new Map<string, string>();
  for (const line of text.split('\r\n')) {
    const i = line.indexOf(':');
    if (i > 0) out.set(line.slice(0, i), line.slice(i + 1));
  }
  return out;
}

describe.skipIf(!HAVE_REAL_REDIS)(HAVE_REAL_REDIS ? 'limits and clock beside redis-server 7.0.15' : `limits (${skipNotice()})`, () => {
  const sides: Side[] = [];
  afterAll(async () => {
    for (const s of sides) await s.stop();
  });

  it("keeps the machine's clock: TIME, server_time_usec, PXAT deadlines, and the OS pid", async () => {
    const started = await both();
    sides.push(...started);
    for (const side of started) {
      const c = await RawConnection.open(side.port);
      try {
        let finerThanMs = 0;
        for (let i = 0; i < 20; i++) {
          const beforeUs = Date.now() * 1000;
          const [sec, usec] = (await c.command(['TIME'])) as string[];
          const afterUs = (Date.now() + 1) * 1000;
          const us = Number(sec) * 1e6 + Number(usec);
          expect([side.name, us >= beforeUs && us <= afterUs]).toEqual([side.name, true]);
          const serverUs = Number((await info(c, 'server')).get('server_time_usec'));
          if (serverUs % 1000 !== 0) finerThanMs++;
          // A deadline a client computes from its own clock is as far away for the server.
          await c.command(['SET', 'k', 'v']);
          await c.command(['GETEX', 'k', 'PXAT', String(Date.now() + 10_000)]);
          const pttl = Number(await c.command(['PTTL', 'k']));
          expect([side.name, pttl <= 10_000 && pttl >= 9_000]).toEqual([side.name, true]);
        }
        expect([side.name, finerThanMs > 0]).toEqual([side.name, true]);
        expect([side.name, (await info(c, 'server')).get('process_id')]).toEqual([side.name, String(side.pid)]);
        expect(side.log()).toContain(`pid=${side.pid}, just started`);
      } finally {
        c.close();
      }
    }
  });

  it('closes a connection whose lines are HTTP, without a reply, and logs it once a minute', async () => {
    const started = await both();
    sides.push(...started);
    for (const side of started) {
      const peers = await Promise.all([Peer.open(side.port), Peer.open(side.port)]);
      peers[0]!.send('PING\r\nPOST / HTTP/1.1\r\nHost: x\r\n\r\nSET pwned yes\r\n');
      peers[1]!.send('Host: x\r\nSET pwned2 yes\r\n');
      for (const p of peers) await p.until(() => false, 2000);
      expect([side.name, peers.map((p) => [p.bytes, p.closed])]).toEqual([side.name, [['', true], ['', true]]]);
      const c = await RawConnection.open(side.port);
      expect(await c.command(['EXISTS', 'pwned', 'pwned2'])).toBe(0);
      c.close();
      const lines = side.log().split('\n').filter((l) => l.includes('Possible SECURITY ATTACK detected'));
      expect([side.name, lines.length]).toEqual([side.name, 1]);
      expect(lines[0]).toMatch(
        /^\d+:M .* # Possible SECURITY ATTACK detected\. It looks like somebody is sending POST or Host: commands to Redis\. This is likely due to an attacker attempting to use Cross Protocol Scripting to compromise your Redis instance\. Connection aborted\.$/,
      );
    }
  });

  it('answers a connection beyond maxclients with an error and closes it', async () => {
    const started = await both(['--maxclients', '3']);
    sides.push(...started);
    for (const side of started) {
      const peers: Peer[] = [];
      for (let i = 0; i < 6; i++) peers.push(await Peer.open(side.port));
      for (const p of peers) p.send('PING\r\n');
      for (const p of peers) await p.until(() => p.bytes.length > 0);
      await new Promise((r) => setTimeout(r, 100));
      const seen = peers.map((p) => [p.bytes, p.closed]);
      expect([side.name, seen]).toEqual([
        side.name,
        [
          ['+PONG\r\n', false],
          ['+PONG\r\n', false],
          ['+PONG\r\n', false],
          ['-ERR max number of clients reached\r\n', true],
          ['-ERR max number of clients reached\r\n', true],
          ['-ERR max number of clients reached\r\n', true],
        ],
      ]);
      peers[0]!.send('INFO stats\r\n');
      await peers[0]!.until(() => peers[0]!.bytes.includes('rejected_connections'));
      expect(peers[0]!.bytes).toContain('rejected_connections:3\r\n');
      for (const p of peers) p.close();
    }
  });

  it("counts a reader's unsent replies in omem and closes it at the normal class's hard limit, with Redis's log line", async () => {
    const started = await both(['--client-output-buffer-limit', 'normal 64mb 32mb 5']);
    sides.push(...started);
    const value = 'x'.repeat(10 * 1024 * 1024);
    for (const side of started) {
      const admin = await RawConnection.open(side.port);
      await admin.command(['SET', 'big10m', value]);
      await admin.command(['SET', 'big1m', value.slice(0, 1024 * 1024)]);
      // Under the limit: 20 MB the client does not read wait in the server, counted.
      const slow = await Peer.open(side.port);
      slow.socket.pause();
      slow.send('CLIENT SETNAME slow\r\n' + '*2\r\n$3\r\nGET\r\n$5\r\nbig1m\r\n'.repeat(20));
      // Wait for the state to settle: a CLIENT LIST that the server runs in the same pass as the GETs sees
      // replies queued before the pass's end has given them to the socket and asked to hear when it drains.
      const settled = (l: string) => Number(/ omem=(\d+)/.exec(l)?.[1] ?? 0) > 10 * 1024 * 1024 && / events=rw /.test(l);
      let line = '';
      for (let i = 0; i < 250; i++) {
        line = String(await admin.command(['CLIENT', 'LIST'])).split('\n').find((l) => l.includes('name=slow')) ?? '';
        if (settled(line)) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      const omem = Number(/ omem=(\d+)/.exec(line)![1]);
      expect([side.name, omem > 10 * 1024 * 1024, / events=rw /.test(line), / oll=[1-9]/.test(line)]).toEqual([side.name, true, true, true]);
      // Over it: 50 GETs of 10 MB close the connection once 64 MB wait.
      const flood = await Peer.open(side.port);
      flood.socket.pause();
      flood.send('CLIENT SETNAME flood\r\n' + '*2\r\n$3\r\nGET\r\n$6\r\nbig10m\r\n'.repeat(50));
      for (let i = 0; i < 200 && !side.log().includes('for overcoming of output buffer limits'); i++) await new Promise((r) => setTimeout(r, 20));
      const list = String(await admin.command(['CLIENT', 'LIST']));
      expect([side.name, list.includes('name=flood')]).toEqual([side.name, false]);
      const logged = side.log().split('\n').find((l) => l.includes('for overcoming of output buffer limits'))!;
      expect([side.name, logged.replace(/^\d+:M .* # /, '# ').replace(/=\d+/g, '=N').replace(/addr=\S+/g, 'addr=A')]).toEqual([
        side.name,
        '# Client id=N addr=A laddr=A fd=N name=flood age=N idle=N flags=N db=N sub=N psub=N ssub=N multi=-1 qbuf=N qbuf-free=N argv-mem=N multi-mem=N rbs=N rbp=N obl=N oll=N omem=N tot-mem=N events=r cmd=get user=default redir=-1 resp=N scheduled to be closed ASAP for overcoming of output buffer limits.',
      ]);
      const omemAtClose = Number(/ omem=(\d+)/.exec(logged)![1]);
      expect([side.name, omemAtClose >= 64 * 1024 * 1024 && omemAtClose < 80 * 1024 * 1024]).toEqual([side.name, true]);
      slow.close();
      flood.close();
      admin.close();
    }
  }, 60_000);

  it("closes a subscriber that never reads at the pubsub class's hard limit, with Redis's log line", async () => {
    const started = await both(['--client-output-buffer-limit', 'pubsub 1mb 0 0']);
    sides.push(...started);
    const message = 'm'.repeat(256 * 1024);
    const lines: string[] = [];
    for (const side of started) {
      const admin = await RawConnection.open(side.port);
      const sub = await Peer.open(side.port);
      sub.send('CLIENT SETNAME sub\r\n*2\r\n$9\r\nSUBSCRIBE\r\n$4\r\nnews\r\n');
      await sub.until(() => sub.bytes.includes(':1\r\n'));
      sub.socket.pause();
      // The socket's buffers take a few MB before replies wait in the server;
      // PUBLISH counts the subscriber until the limit closes it.
      let published = 0;
      let receivers = 1;
      while (receivers === 1 && published < 800) {
        receivers = Number(await admin.command(['PUBLISH', 'news', message]));
        published++;
      }
      expect([side.name, receivers]).toEqual([side.name, 0]);
      const list = String(await admin.command(['CLIENT', 'LIST']));
      expect([side.name, list.includes('name=sub')]).toEqual([side.name, false]);
      // What reached the socket before the limit is delivered, then the connection ends.
      sub.socket.resume();
      await sub.until(() => false, 20_000);
      expect([side.name, sub.closed]).toEqual([side.name, true]);
      const logged = side.log().split('\n').find((l) => l.includes('for overcoming of output buffer limits')) ?? '';
      lines.push(logged.replace(/^\d+:M .* # /, '# ').replace(/=\d+/g, '=N').replace(/addr=\S+/g, 'addr=A'));
      admin.close();
    }
    expect(lines[0]).toBe(
      '# Client id=N addr=A laddr=A fd=N name=sub age=N idle=N flags=P db=N sub=N psub=N ssub=N multi=-1 qbuf=N qbuf-free=N argv-mem=N multi-mem=N rbs=N rbp=N obl=N oll=N omem=N tot-mem=N events=rw cmd=subscribe user=default redir=-1 resp=N scheduled to be closed ASAP for overcoming of output buffer limits.',
    );
    expect(lines[1]).toBe(lines[0]);
  }, 60_000);

  it('sends an EXEC reply of 629 MB whole, as redis-server does', async () => {
    const started = await both();
    sides.push(...started);
    const value = 'v'.repeat(1024 * 1024);
    const request = '*1\r\n$5\r\nMULTI\r\n' + '*2\r\n$3\r\nGET\r\n$5\r\nbig1m\r\n'.repeat(600) + '*1\r\n$4\r\nEXEC\r\n' + 'PING\r\n';
    const expectedBytes = 5 + 600 * 9 + 6 + 600 * (value.length + 12) + 7;
    const digests: string[] = [];
    for (const side of started) {
      const admin = await RawConnection.open(side.port);
      await admin.command(['SET', 'big1m', value]);
      admin.close();
      const s = new Socket();
      await new Promise<void>((resolve) => s.connect(side.port, '127.0.0.1', resolve));
      const hash = createHash('md5');
      let received = 0;
      let tail = '';
      await new Promise<void>((resolve, reject) => {
        s.on('data', (d: Buffer) => {
          hash.update(d);
          received += d.length;
          tail = (tail + d.toString('latin1')).slice(-16);
          if (received >= expectedBytes) resolve();
        });
        s.on('close', () => reject(new Error(`${side.name} closed the connection after ${received} bytes`)));
        s.write(request, 'latin1');
      });
      s.destroy();
      expect([side.name, received, tail.endsWith('\r\n+PONG\r\n')]).toEqual([side.name, expectedBytes, true]);
      digests.push(hash.digest('hex'));
    }
    expect(digests[1]).toBe(digests[0]);
  }, 120_000);

  it('moves its listener with CONFIG SET port, and rolls back when the port is taken', async () => {
    const started = await both();
    sides.push(...started);
    const taken = createServer();
    const takenPort = await new Promise<number>((resolve) => taken.listen(0, '127.0.0.1', () => resolve((taken.address() as AddressInfo).port)));
    try {
      for (const side of started) {
        const c = await RawConnection.open(side.port);
        const refused = await c.command(['CONFIG', 'SET', 'maxmemory', '10000001', 'port', String(takenPort)]);
        expect([side.name, String((refused as ErrorReply).message)]).toEqual([
          side.name,
          "ERR CONFIG SET failed (possibly related to argument 'port') - Unable to listen on this port. Check server logs.",
        ]);
        expect(await c.command(['CONFIG', 'GET', 'port'])).toEqual(['port', String(side.port)]);
        expect(await c.command(['CONFIG', 'GET', 'maxmemory'])).toEqual(['maxmemory', '0']);
        const again = await RawConnection.open(side.port);
        expect(await again.command(['PING'])).toEqual(new StatusReply('PONG'));
        again.close();
        for (let i = 0; i < 50 && !side.log().includes(`:${takenPort}: bind: Address already in use`); i++) await new Promise((r) => setTimeout(r, 10));
        expect(side.log()).toContain(`Warning: Could not create server TCP listening socket 127.0.0.1:${takenPort}: bind: Address already in use`);

        const moved = await freePort();
        expect([side.name, await c.command(["CONFIG", "SET", "port", String(moved)])]).toEqual([side.name, new StatusReply("OK")]);
        const there = await RawConnection.open(moved);
        expect(await there.command(['CONFIG', 'GET', 'port'])).toEqual(['port', String(moved)]);
        expect((await info(there, 'server')).get('tcp_port')).toBe(String(moved));
        there.close();
        await expect(RawConnection.open(side.port)).rejects.toThrow(/ECONNREFUSED/);
        // The connection made before the move goes on.
        expect(await c.command(['PING'])).toEqual(new StatusReply('PONG'));
        expect(await c.command(['CONFIG', 'SET', 'port', String(side.port)])).toEqual(new StatusReply('OK'));
        c.close();
      }
    } finally {
      taken.close();
    }
  });

  it('answers a SHUTDOWN whose final save fails with an error, stays up, and logs why', async () => {
    const seen: string[][] = [];
    for (const name of ['real', 'emulator'] as const) {
      // The log is kept outside the data directory, which the test removes.
      const logDir = mkdtempSync(join(tmpdir(), 'rw-shutdown-log-'));
      let port: number;
      let dir: string;
      let readLog: () => string;
      let stop: () => Promise<void>;
      if (name === 'real') {
        const r = await startRealRedis(['--logfile', join(logDir, 'redis.log')]);
        ({ port, dir } = r);
        readLog = () => readFileSync(join(logDir, 'redis.log'), 'latin1');
        stop = () => r.stop();
      } else {
        dir = mkdtempSync(join(tmpdir(), 'rw-shutdown-'));
        port = await freePort();
        let log = '';
        const cwd = process.cwd();
        const r = await runServer(['--port', String(port), '--dir', dir, '--save', ''], { stdout: (t) => (log += t) }).finally(() => process.chdir(cwd));
        if (typeof r === 'number') throw new Error(`npm run server did not start:\n${log}`);
        readLog = () => log;
        stop = () => r.shutdown();
      }
      const c = await RawConnection.open(port);
      await c.command(['SET', 'k', 'v']);
      rmSync(dir, { recursive: true, force: true });
      const reply = await c.commandRaw(['SHUTDOWN', 'SAVE']);
      const after = await c.commandRaw(['GET', 'k']);
      c.close();
      const log = readLog().trimEnd().split('\n');
      const from = log.map((l) => l.endsWith('User requested shutdown...')).lastIndexOf(true);
      seen.push([reply, after, ...log.slice(from).map((l) => l.replace(/^\d+:M [^#*]*/, '').replace(/temp-\d+\.rdb/, 'temp-PID.rdb'))]);
      await stop();
      rmSync(logDir, { recursive: true, force: true });
    }
    expect(seen[1]).toEqual(seen[0]);
    expect(seen[0]).toEqual([
      '-ERR Errors trying to SHUTDOWN. Check logs.\r\n',
      '$1\r\nv\r\n',
      '# User requested shutdown...',
      '* Saving the final RDB snapshot before exiting.',
      '# Failed opening the temp RDB file temp-PID.rdb (in server root dir unknown) for saving: No such file or directory',
      "# Error trying to save the DB, can't exit.",
      '# Errors trying to shut down the server. Check the logs for more information.',
    ]);
  }, 60_000);

  it('refuses to start when appendonlydir is a regular file, before writing anything', async () => {
    const lines: string[] = [];
    for (const name of ['real', 'emulator'] as const) {
      const dir = mkdtempSync(join(tmpdir(), 'rw-aofdir-'));
      writeFileSync(join(dir, 'appendonlydir'), '');
      const args = ['--port', String(await freePort()), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes', '--dir', dir];
      let log = '';
      let code: number;
      if (name === 'real') {
        const r = spawnSync(REDIS_SERVER_BIN, args, { encoding: 'latin1', timeout: 30_000 });
        log = r.stdout;
        code = r.status ?? -1;
      } else {
        const cwd = process.cwd();
        const r = await runServer(args, { stdout: (t) => (log += t) }).finally(() => process.chdir(cwd));
        if (typeof r !== 'number') await r.shutdown();
        code = typeof r === 'number' ? r : 0;
      }
      const files = readdirSync(dir);
      rmSync(dir, { recursive: true, force: true });
      const last = log.trimEnd().split('\n').at(-1) ?? '';
      lines.push(last.replace(/^\d+:M [^#*]*/, ''));
      expect([name, code, files]).toEqual([name, 1, ['appendonlydir']]);
    }
    expect(lines[1]).toBe(lines[0]);
    expect(lines[0]).toBe("# Can't open or create append-only dir appendonlydir: Not a directory");
  });
});
