/**
 * redis-server's command line and configuration files, as `npm run server`
 * reads them: the parser on its own, then the fatal errors next to the real
 * redis-server's.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseServerArgs, type ConfigIO, type EmulatorConfigCheck, type ServerSettings } from '../../src/node/server-config.js';
import { runServer } from '../../src/node/server-main.js';
import { freePort, RawConnection, REDIS_SERVER_BIN, startRealRedis } from '../support/real-redis.js';
import { HAVE_REAL_REDIS, skipNotice } from '../differential/availability.js';

const files: Record<string, string> = {};
const io: ConfigIO = {
  readFile(path) {
    if (!(path in files)) throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
    return files[path]!;
  },
  readStdin: () => '',
  chdir: (path) => (path === '/nope' ? 'No such file or directory' : null),
  cwd: () => '/data',
  glob: (pattern) => Object.keys(files).filter((f) => f.startsWith(pattern.slice(0, pattern.indexOf('*'))) && f.endsWith('.conf')).sort(),
};
const emulatorKnows = new Set(['hz', 'save', 'dir', 'port', 'maxmemory', 'appendonly']);
const check: EmulatorConfigCheck = {
  knows: (name) => emulatorKnows.has(name),
  check: (name, value) => (name === 'hz' && !/^\d+$/.test(value) ? 'argument couldn\'t be parsed into an integer' : null),
};

function run(args: string[]): ServerSettings {
  const r = parseServerArgs(args, io, check);
  if (r.kind !== 'run') throw new Error(`expected a start, got ${JSON.stringify(r)}`);
  return r.settings;
}

function fatal(args: string[]): string {
  const r = parseServerArgs(args, io, check);
  if (r.kind !== 'fatal') throw new Error(`expected a fatal error, got ${JSON.stringify(r)}`);
  return r.message;
}

describe('redis-server arguments', () => {
  it('listens on 127.0.0.1:6379 by default', () => {
    const s = run([]);
    expect(s.port).toBe(6379);
    expect(s.bind).toEqual(['127.0.0.1']);
    expect(s.emulator).toEqual({});
  });

  it('--port, --bind with several addresses, --dir', () => {
    const s = run(['--port', '6380', '--bind', '127.0.0.1', '::1', '--dir', '/tmp']);
    expect(s.port).toBe(6380);
    expect(s.emulator.port).toBe('6380');
    expect(s.bind).toEqual(['127.0.0.1', '::1']);
    expect(s.emulator.dir).toBe('/data');
  });

  it('--save with an empty argument, with "" and at the end of the line', () => {
    expect(run(['--save', '']).emulator.save).toBe('');
    expect(run(['--save', '""']).emulator.save).toBe('');
    expect(run(['--port', '1', '--save']).emulator.save).toBe('');
    expect(run(['--save', '--port', '7']).emulator.save).toBe('');
    expect(run(['--save', '--port', '7']).port).toBe(7);
  });

  it('--save with several words, in one argument or many', () => {
    expect(run(['--save', '3600 1 300 100']).emulator.save).toBe('3600 1 300 100');
    expect(run(['--save', '3600', '1', '300', '100']).emulator.save).toBe('3600 1 300 100');
    expect(fatal(['--save', '3600'])).toContain('Invalid save parameters');
  });

  it('a name and its value in one argument', () => {
    expect(run(['--port 6390']).port).toBe(6390);
  });

  it('-v and --version ask for the version, -h for the usage', () => {
    expect(parseServerArgs(['-v'], io, check).kind).toBe('version');
    expect(parseServerArgs(['--version'], io, check).kind).toBe('version');
    expect(parseServerArgs(['-h'], io, check).kind).toBe('usage');
  });

  it('accepts Redis parameters the emulator does not model, and refuses unknown ones', () => {
    const s = run(['--tcp-keepalive', '60', '--io-threads', '4']);
    expect(s.ignored).toEqual(['tcp-keepalive', 'io-threads']);
    expect(fatal(['--no-such-thing', '1'])).toBe(
      "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the configuration file, at line 2\n>>> 'no-such-thing \"1\"'\nBad directive or wrong number of arguments",
    );
  });

  it('reads a config file: comments, quotes, several save lines, include', () => {
    files['/etc/r.conf'] = '# a comment\n  port 7000  \r\nsave 900 1\nsave 300 10\ninclude /etc/conf.d/*.conf\nmaxmemory "100mb"\n';
    files['/etc/conf.d/a.conf'] = 'hz 20\n';
    const s = run(['/etc/r.conf', '--appendonly', 'yes']);
    expect(s.configFile).toBe('/etc/r.conf');
    expect(s.port).toBe(7000);
    expect(s.emulator).toEqual({ port: '7000', hz: '20', maxmemory: '100mb', appendonly: 'yes', save: '900 1 300 10' });
  });

  it('the command line comes after the file and wins', () => {
    files['/etc/p.conf'] = 'port 7000\nsave 900 1\n';
    const s = run(['/etc/p.conf', '--port', '7001', '--save', '']);
    expect(s.port).toBe(7001);
    expect(s.emulator.save).toBe('');
  });

  it('reports errors with the line they are on', () => {
    files['/etc/bad.conf'] = 'port 7\n\nsave "1 2" "3\n';
    expect(fatal(['/etc/bad.conf'])).toBe(
      "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the configuration file, at line 3\n>>> 'save \"1 2\" \"3'\nUnbalanced quotes in configuration line",
    );
    expect(fatal(['--hz', 'abc'])).toContain('argument couldn\'t be parsed into an integer');
    expect(fatal(['--dir', '/nope'])).toContain('No such file or directory');
    expect(fatal(['/etc/missing.conf'])).toBe("Fatal error, can't open config file '/etc/missing.conf': No such file or directory");
  });
});

describe.skipIf(!HAVE_REAL_REDIS)(HAVE_REAL_REDIS ? 'redis-server fatal configuration errors' : `redis-server fatal configuration errors (${skipNotice()})`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'rw-server-config-'));
  const badConf = join(dir, 'bad.conf');
  writeFileSync(badConf, 'port 7\n# comment\nsave "1 2" "3\n');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const CASES: string[][] = [
    ['--nosuch', '1'],
    ['--port', 'abc'],
    ['--port', '70000'],
    ['--port', '1', '2'],
    ['--save', '1'],
    ['--save', '0 1'],
    ['--save', '10', 'x'],
    ['--loglevel', 'loud'],
    ['--daemonize', 'maybe'],
    [badConf],
    [badConf, '--port', '8'],
  ];

  for (const args of CASES) {
    it(`redis-server ${args.join(' ')}`, async () => {
      const real = spawnSync(REDIS_SERVER_BIN, args, { encoding: 'utf8', timeout: 10_000 });
      let stderr = '';
      const code = await runServer(args, { stdout: () => {}, stderr: (t) => (stderr += t) });
      expect(code).toBe(1);
      expect(real.status).toBe(1);
      expect(stderr).toBe(real.stderr);
    });
  }

  it('redis-server --version', async () => {
    const real = spawnSync(REDIS_SERVER_BIN, ['--version'], { encoding: 'utf8' });
    let stdout = '';
    expect(await runServer(['--version'], { stdout: (t) => (stdout += t) })).toBe(0);
    const shape = (s: string) => s.replace(/sha=\S+/, 'sha=').replace(/malloc=\S+/, 'malloc=').replace(/build=[0-9a-f]+/, 'build=');
    expect(shape(stdout)).toBe(shape(real.stdout));
  });
});

describe.skipIf(!HAVE_REAL_REDIS)(HAVE_REAL_REDIS ? 'startup options next to redis-server' : `startup options next to redis-server (${skipNotice()})`, () => {
  const OPTIONS = ['--save', '3600 1 300 100', '--hz', '25', '--maxmemory', '100mb', '--databases', '4', '--maxmemory-policy', 'allkeys-lru', '--hash-max-ziplist-entries', '64',
    // Hidden parameters (not in CONFIG GET *), which Redis's test suite sets.
    '--key-load-delay', '50', '--rdb-key-save-delay', '10', '--loading-process-events-interval-bytes', '1024'];

  it('reach CONFIG GET as they do on the real server', async () => {
    const real = await startRealRedis(OPTIONS);
    const port = await freePort();
    const ours = await runServer(['--port', String(port), ...OPTIONS], { stdout: () => {} });
    if (typeof ours === 'number') throw new Error('the emulator did not start');
    const [a, b] = await Promise.all([RawConnection.open(real.port), RawConnection.open(port)]);
    try {
      for (const name of ['save', 'hz', 'maxmemory', 'databases', 'maxmemory-policy', 'hash-max-listpack-entries', 'key-load-delay', 'rdb-key-save-delay', 'loading-process-events-interval-bytes']) {
        expect(await b.commandRaw(['CONFIG', 'GET', name])).toBe(await a.commandRaw(['CONFIG', 'GET', name]));
      }
      expect(await b.commandRaw(['SELECT', '4'])).toBe(await a.commandRaw(['SELECT', '4']));
    } finally {
      a.close();
      b.close();
      await ours.shutdown();
      await real.stop();
    }
  });
});
