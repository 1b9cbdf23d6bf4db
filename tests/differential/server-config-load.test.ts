/**
 * redis-server's configuration at start, three ways on the same command
 * lines and files: the real redis-server 7.0.15, the shell's redis-server
 * in a simulated world and `npm run server` (runServer in this process).
 * Both of the emulator's starts read through one loader
 * (emulator/server/config-loader.ts); these tables hold them to the real
 * binary: the exit status and every printed line of a fatal error, and the
 * values a table of startup options gives CONFIG GET.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runServer } from '../../src/node/server-main.js';
import { bytes, shellWorld } from '../emulator/programs/shell-harness.js';
import { freePort, RawConnection, REDIS_SERVER_BIN, startRealRedis } from '../support/real-redis.js';
import { HAVE_REAL_REDIS, skipNotice } from './availability.js';

const dir = mkdtempSync(join(tmpdir(), 'rw-config-load-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const at = (name: string): string => join(dir, name);

/** Config files, written at the same paths on this machine and in the simulated world. */
const FILES: Record<string, string> = {
  'a.conf': '# comment\n\nport 6390\n  maxmemory 100mb  \nsave 900 1\nsave "a b"\n',
  'b.conf': 'port 6391\nsave "\nappendonly yes\n',
  'c.conf': 'list-max-ziplist-entries 5\nlua-replicate-commands yes\nfoo bar\n',
  'd.conf': `include ${at('inc.conf')}\nport 1\n`,
  'inc.conf': 'maxmemory 1mb\nmaxclients x\n',
  'e.conf': '"port" 6379\n\'maxmemory\' 1 2\n',
  'f.conf': 'port 6392\r\nhz 0x10\r\n',
  'g.conf': 'include /nonexistent-dir-for-the-test/x.conf\n',
  'h.conf': 'port 6393\nsentinel monitor mymaster 127.0.0.1 6379 2\n',
  'i.conf': 'rename-command CONFIG ""\nrename-command CONFIG x\n',
  'j.conf': `include ${at('conf.d')}/*.conf\nport 6394\n`,
  'conf.d/1.conf': 'tcp-keepalive 60\n',
  'conf.d/2.conf': 'rename-command FLUSHALL ""\nrename-command FLUSHALL x\n',
  'k.conf': 'port 7\n# comment\nsave "1 2" "3\n',
  'l.conf': `logfile ${at('server.log')}\ncluster-enabled yes\nreplicaof 127.0.0.1 6379\n`,
};
mkdirSync(at('conf.d'));
for (const [name, text] of Object.entries(FILES)) writeFileSync(at(name), text, 'latin1');

/** Command lines that each end the start with a configuration error ("@x" is the file x). */
const FATAL_CASES: string[][] = [
  ['--bogus', '1'],
  ['--port', 'abc'],
  ['--port', '99999'],
  ['--port'],
  ['--port', '6379', '6380'],
  ['--save', 'a'],
  ['--save', '1'],
  ['--save', '0 1'],
  ['--save', '10', 'x'],
  ['--save', '900', '1', '--save', '60'],
  ['--maxmemory', '1zz'],
  ['--appendonly', 'maybe'],
  ['--loglevel', 'loud'],
  ['--maxmemory-policy', 'never'],
  ['--daemonize', 'maybe'],
  ['--daemonize', 'yes', '--port', '6399', '--port', '99999'],
  ['--hz', 'x'],
  ['--dir', '/nonexistent-dir-for-the-test'],
  ['--logfile', '/nonexistent-dir-for-the-test/redis.log'],
  ['--replicaof', 'somehost'],
  ['--cluster-enabled', 'yes', '--replicaof', '127.0.0.1', '6379'],
  ['--rename-command', 'NOSUCHCOMMAND', 'x'],
  ['--rename-command', 'GET', 'SET'],
  ['--rename-command', 'GET', 'x', '--rename-command', 'GET', 'y'],
  ['--notify-keyspace-events', 'Q'],
  ['--client-output-buffer-limit', 'normal', '1', '2'],
  ['--user'],
  ['--my.module-option'],
  ['--tcp-keepalive', '60', '--io-threads', '4', '--nosuch', '1'],
  ['--bind', '1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '11', '12', '13', '14', '15', '16', '17'],
  ['@a.conf'],
  ['@b.conf'],
  ['@c.conf'],
  ['@d.conf'],
  ['@e.conf'],
  ['@f.conf'],
  ['@g.conf'],
  ['@h.conf'],
  ['@i.conf'],
  ['@j.conf'],
  ['@k.conf'],
  ['@k.conf', '--port', '8'],
  ['@l.conf'],
  ['@conf.d/1.conf', '--hz', 'x'],
  ['/nonexistent-dir-for-the-test/redis.conf'],
];

const files = (args: string[]): string[] => args.map((a) => (a.startsWith('@') ? at(a.slice(1)) : a));

/** A line redis-server writes to its log before it has a role: "pid:C 27 Nov 2026 10:20:00.123 # text" without its pid and time. */
const withoutLogPrefix = (s: string): string => s.replace(/^\d+:C \d\d \w{3} \d{4} [\d:.]+ # /gm, '');

function realServer(args: string[]): { out: string; stdout: string; stderr: string; status: number | null } {
  // Every case is a fatal configuration error and the server exits by
  // itself; the timeout only kills a server a case failed to stop.
  const r = spawnSync(REDIS_SERVER_BIN, args, { encoding: 'latin1', cwd: dir, timeout: 10_000 });
  return { out: r.stdout + r.stderr, stdout: r.stdout, stderr: r.stderr, status: r.status };
}

/** The shell's redis-server on the same files, with its exit status. */
function shellServer(args: string[]): { out: string; status: string } {
  const { world, run } = shellWorld();
  const disk = world.host('redis').disk;
  disk.mkdir(at('conf.d'), { recursive: true });
  for (const [name, text] of Object.entries(FILES)) disk.writeFile(at(name), bytes(text));
  run(`cd ${dir}`);
  const out = run(`redis-server ${args.map((a) => `'${a}'`).join(' ')}`);
  return { out, status: run('echo $?').trim() };
}

/** npm run server on the same files, in this process (its working directory put back after). */
async function nodeServer(args: string[]): Promise<{ stdout: string; stderr: string; status: number }> {
  let stdout = '';
  let stderr = '';
  const cwd = process.cwd();
  process.chdir(dir);
  try {
    const r = await runServer(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
    if (typeof r !== 'number') {
      await r.shutdown();
      return { stdout, stderr, status: 0 };
    }
    return { stdout, stderr, status: r };
  } finally {
    process.chdir(cwd);
  }
}

describe.skipIf(!HAVE_REAL_REDIS)(HAVE_REAL_REDIS ? 'fatal configuration errors next to redis-server 7.0.15' : `fatal configuration errors (${skipNotice()})`, () => {
  it('the shell and npm run server exit 1 and print what redis-server prints, line for line', async () => {
    for (const c of FATAL_CASES) {
      const args = files(c);
      const label = c.join(' ');
      const real = realServer(args);
      expect(real.status, label).toBe(1);
      const shell = shellServer(args);
      expect(shell.status, label).toBe('1');
      expect(withoutLogPrefix(shell.out), label).toBe(withoutLogPrefix(real.out));
      const node = await nodeServer(args);
      expect(node.status, label).toBe(1);
      expect(withoutLogPrefix(node.stdout), label).toBe(withoutLogPrefix(real.stdout));
      expect(node.stderr, label).toBe(real.stderr);
    }
  });
});

/** Startup options, and the parameters whose CONFIG GET they set. */
const OPTIONS = [
  '--save', '3600 1 300 100', '--hz', '25', '--maxmemory', '100mb', '--databases', '4', '--maxmemory-policy', 'allkeys-lru',
  '--hash-max-ziplist-entries', '64', '--appendfsync', 'always', '--notify-keyspace-events', 'KEA', '--client-output-buffer-limit', 'pubsub 1mb 512kb 30',
  '--rename-command', 'FLUSHALL', '', '--tcp-keepalive', '60',
  // Hidden parameters (not in CONFIG GET *), which Redis's test suite sets.
  '--key-load-delay', '50', '--rdb-key-save-delay', '10', '--loading-process-events-interval-bytes', '1024',
];
const READ_BACK = ['save', 'hz', 'maxmemory', 'databases', 'maxmemory-policy', 'hash-max-listpack-entries', 'appendfsync', 'notify-keyspace-events',
  'client-output-buffer-limit', 'key-load-delay', 'rdb-key-save-delay', 'loading-process-events-interval-bytes'];

/** CONFIG GET's reply for one parameter and its value. */
const configGetReply = (name: string, value: string): string => `*2\r\n$${name.length}\r\n${name}\r\n$${value.length}\r\n${value}\r\n`;

describe.skipIf(!HAVE_REAL_REDIS)(HAVE_REAL_REDIS ? 'startup options next to redis-server' : `startup options next to redis-server (${skipNotice()})`, () => {
  it('reach CONFIG GET as they do on the real server, from npm run server and from the shell', async () => {
    const real = await startRealRedis(OPTIONS);
    const port = await freePort();
    const ours = await runServer(['--port', String(port), ...OPTIONS], { stdout: () => {} });
    if (typeof ours === 'number') throw new Error('the emulator did not start');
    const { world, run } = shellWorld();
    expect(run(`redis-server ${OPTIONS.map((a) => `'${a}'`).join(' ')}`)).toBe('');
    const shellConfig = world.redis('redis')!.server.config;
    const [a, b] = await Promise.all([RawConnection.open(real.port), RawConnection.open(port)]);
    try {
      for (const name of READ_BACK) {
        const want = await a.commandRaw(['CONFIG', 'GET', name]);
        expect(await b.commandRaw(['CONFIG', 'GET', name]), name).toBe(want);
        expect(configGetReply(name, shellConfig.get(name)), name).toBe(want);
      }
      expect(await b.commandRaw(['SELECT', '3'])).toBe(await a.commandRaw(['SELECT', '3']));
    } finally {
      a.close();
      b.close();
      await ours.shutdown();
      await real.stop();
    }
  });
});
