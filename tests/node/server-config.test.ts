/**
 * redis-server's command line and configuration files, as `npm run server`
 * takes them from the emulator's reader: what the process does itself
 * (port, bind, log, pid file) and what goes to the emulator. The fatal
 * errors and startup values next to the real redis-server's are in
 * tests/differential/server-config-load.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { parseServerArgs, type ConfigSource, type ServerSettings } from '../../src/node/server-config.js';

const files: Record<string, string> = {};
let cwd = '/data';
const io: ConfigSource = {
  readFile: (path) => (path in files ? { text: files[path]! } : { error: 'No such file or directory' }),
  readStdin: () => 'hz 30\n',
  chdir(path) {
    if (path === '/nope') return 'No such file or directory';
    cwd = path;
    return null;
  },
  cwd: () => cwd,
  glob: (pattern) => Object.keys(files).filter((f) => f.startsWith(pattern.slice(0, pattern.indexOf('*'))) && f.endsWith('.conf')).sort(),
  touchLog: (path) => (path.startsWith('/nope/') ? 'No such file or directory' : null),
};

function run(args: string[]): ServerSettings {
  cwd = '/data';
  const r = parseServerArgs(args, io);
  if (r.kind !== 'run') throw new Error(`expected a start, got ${JSON.stringify(r)}`);
  return r.settings;
}

function fatal(args: string[]): string {
  const r = parseServerArgs(args, io);
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
    expect(s.emulator.dir).toBe('/tmp');
  });

  it('writes the log itself: logfile and loglevel for the process, logfile kept from the emulator but written back by CONFIG REWRITE', () => {
    const s = run(['--logfile', '/var/log/r.log', '--loglevel', 'verbose', '--pidfile', '/run/r.pid', '--daemonize', 'yes']);
    expect(s).toMatchObject({ logfile: '/var/log/r.log', loglevel: 'verbose', pidfile: '/run/r.pid', daemonize: true });
    expect(s.emulator.logfile).toBeUndefined();
    expect(s.emulator.loglevel).toBe('verbose');
    expect(s.hostValues).toEqual({ logfile: '/var/log/r.log' });
    expect(fatal(['--logfile', '/nope/r.log'])).toBe("\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nCan't open the log file: No such file or directory");
  });

  it('checks rename-command and says that the emulator does not apply it; reads standard input for -', () => {
    const s = run(['-', '--rename-command', 'FLUSHALL', '']);
    expect(s.warnings).toEqual(['Reading config from stdin', "The emulator ignores 'rename-command' directives."]);
    expect(s.emulator.hz).toBe('30');
    expect(fatal(['--rename-command', 'NOSUCH', 'x'])).toContain('No such command in rename-command');
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
    expect(parseServerArgs(['-v'], io).kind).toBe('version');
    expect(parseServerArgs(['--version'], io).kind).toBe('version');
    expect(parseServerArgs(['-h'], io).kind).toBe('usage');
  });

  it('refuses unknown directives', () => {
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
    expect(s.emulator).toEqual({ port: '7000', hz: '20', maxmemory: '104857600', appendonly: 'yes', save: '900 1 300 10' });
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
