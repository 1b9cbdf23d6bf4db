/**
 * `npm run server`: the emulator as a redis-server process. Reads the same
 * command line and configuration files, logs the same way, listens on TCP
 * (127.0.0.1:6379 unless told otherwise) and shuts down cleanly on SIGINT
 * and SIGTERM.
 */
// Every command's code, also those kept apart (emulator/commands/on-demand.ts).
import '../../emulator/commands/on-demand-handlers.js';
import { randomInt } from 'node:crypto';
import { appendFileSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { bytesToUtf8, utf8ToBytes, useHostByteCodec, useHostSha1, type RedisServer } from '../../emulator/index.js';
import { latin1Codec } from './latin1-codec.js';
import { hostSha1 } from './host-sha1.js';
import {
  parseServerArgs,
  usageText,
  versionLine,
  REDIS_VERSION,
  type ConfigSource,
  type ServerSettings,
} from './server-config.js';
import { ServerLog } from './server-log.js';
import { RedisTcpServer, closeEarly, listenEarly, type EarlyListeners } from './tcp-server.js';
import { listenOrStop, nativeWorld } from './native-world.js';
import { RedisProcess } from '../../emulator/process/index.js';
import { STRERROR } from '../../emulator/sim/index.js';
import { NodeWorldDriver } from './world-driver.js';
import { tcpDialer } from './tcp-dialer.js';
import { isSentinelMode, sentinelMain } from './sentinel-main.js';

/** Lines the simulated process logs that this entry point prints itself, in Redis's form. */
const STARTUP_LINES = new Set([
  'Received SIGTERM scheduling shutdown...',
  'Received SIGINT scheduling shutdown...',
]);

/**
 * "DB loaded from disk: 0.113 seconds" with the wall time it really took
 * (the simulated process reports its modelled time); other lines as they are.
 */
function wallLoadingTime(text: string, ms: number): string {
  const m = /^(DB loaded from (?:disk|append only file)): \d+\.\d+ seconds$/.exec(text);
  return m === null ? text : `${m[1]}: ${(ms / 1000).toFixed(3)} seconds`;
}

/**
 * Whether the start shows the logo instead of the "Running mode" line: as
 * redisAsciiArt() in Redis's src/server.c decides, when the log goes to a
 * terminal or when always-show-logo is set.
 */
function showLogo(p: RedisProcess, logfile: string): boolean {
  return p.server.config.get('always-show-logo') === 'yes' || (logfile === '' && process.stdout.isTTY === true);
}

/**
 * The start banner with what Redis's logo carries: version, mode, port and
 * the process id. Redis's test suite waits for " PID: <pid>" in the server's
 * output to know that the process it spawned has bound its port.
 */
function logo(port: number): string {
  return [
    '',
    `    Redis ${REDIS_VERSION} (00000000/0) 64 bit`,
    '    Running in standalone mode',
    `    Port: ${port}`,
    `    PID: ${process.pid}`,
    '',
    '',
  ].join('\n');
}

/** A running server, for the entry point and for tests that run it in-process. */
export interface RunningServer {
  readonly redis: RedisServer;
  readonly tcp: RedisTcpServer;
  readonly settings: ServerSettings;
  readonly log: ServerLog;
  /** Logs Redis's shutdown lines, closes every socket and removes the pid file. */
  shutdown(): Promise<void>;
}

export interface RunOptions {
  /** Where log lines go when no logfile is configured (standard output by default). */
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
  /** What the usage text calls the program. */
  program?: string;
  /** Called once the server has stopped because a client sent SHUTDOWN. */
  onShutdownCommand?: () => void;
}

/** The text strerror() gives for a file-system error, as redis-server prints it. */
function fileErrorText(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  return code !== undefined && code in STRERROR ? STRERROR[code as keyof typeof STRERROR] : (e as Error).message;
}

/** This machine's files and working directory, as the configuration reader sees them. */
const nodeSource: ConfigSource = {
  readFile(path) {
    try {
      // fopen() of a directory succeeds and the reads return nothing.
      if (statSync(bytesToUtf8(path)).isDirectory()) return { text: '' };
      return { text: readFileSync(bytesToUtf8(path), 'latin1') };
    } catch (e) {
      return { error: fileErrorText(e) };
    }
  },
  readStdin: () => readFileSync(0, 'latin1'),
  chdir(path) {
    try {
      process.chdir(bytesToUtf8(path));
      return null;
    } catch (e) {
      return fileErrorText(e);
    }
  },
  cwd: () => utf8ToBytes(process.cwd()),
  glob: (pattern) => globFiles(bytesToUtf8(pattern)).map(utf8ToBytes),
  touchLog(path) {
    try {
      appendFileSync(bytesToUtf8(path), '');
      return null;
    } catch (e) {
      return fileErrorText(e);
    }
  },
};

/**
 * The files matching a pattern whose wildcards (* ? [...]) are in its last
 * part, sorted, like glob(3) for `include /etc/redis/conf.d/*.conf`.
 */
function globFiles(pattern: string): string[] {
  const dir = dirname(pattern);
  const source = basename(pattern).replace(/[.+^${}()|\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  const re = new RegExp(`^${source}$`);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.filter((n) => !n.startsWith('.') && re.test(n)).sort().map((n) => join(dir, n));
}

/**
 * Starts a server from redis-server style arguments. Resolves a
 * RunningServer, or a number: the exit status when the arguments only asked
 * for the version or usage, or were wrong.
 */
export async function runServer(argv: readonly string[], opts: RunOptions = {}): Promise<RunningServer | number> {
  const stdout = opts.stdout ?? ((t: string) => void process.stdout.write(t));
  const stderr = opts.stderr ?? ((t: string) => void process.stderr.write(t));
  const args = argv.map(utf8ToBytes);
  const request = parseServerArgs(args, nodeSource);
  if (request.kind === 'version') {
    stdout(versionLine() + '\n');
    return 0;
  }
  if (request.kind === 'usage') {
    stderr(usageText(opts.program ?? 'npm run server --'));
    return 1;
  }
  if (request.kind === 'fatal') {
    if (request.logged) new ServerLog(stdout).warning(bytesToUtf8(request.message));
    else stderr(bytesToUtf8(request.message) + '\n');
    return 1;
  }
  const settings = request.settings;
  const logfile = bytesToUtf8(settings.logfile);
  const log = new ServerLog(logfile === '' ? stdout : (line) => appendFileSync(logfile, line), settings.loglevel);

  log.warning('oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo');
  log.warning(`Redis version=${REDIS_VERSION}, bits=64, commit=00000000, modified=0, pid=${process.pid}, just started`);
  if (argv.length === 0) {
    log.warning(`Warning: no config file specified, using the default config. In order to specify a config file use ${opts.program ?? 'npm run server --'} /path/to/redis.conf`);
  } else {
    log.warning('Configuration loaded');
  }
  log.notice('This is the redis-workbook emulator of Redis 7.0 (TypeScript, data in memory), not the real redis-server.');
  for (const w of settings.warnings) log.warning(bytesToUtf8(w));
  if (settings.daemonize) log.warning('The emulator does not daemonize: it runs in the foreground.');

  // The server is a process on a simulated host whose world runs in real
  // time; its clients are real TCP clients, and its files live in real
  // folders (the host's paths are this machine's paths).
  const { clock, world, host } = nativeWorld('redis');
  // The simulated process's log lines (loading, saves, forks) go to the
  // server's log from its first line, and its standard output (the report
  // of the RDB check a damaged dump.rdb sets off) to ours. The loading
  // lines say how long loading took on this machine, not in the model.
  let early: EarlyListeners | null = null;
  let spawnedAt = 0;
  let rdbLoadedAt = 0;
  // Like redis-server, ready once the files are loaded and the port listens, whichever comes last.
  let loadedFiles = false;
  let listening = false;
  const ready = (): void => {
    if (loadedFiles && listening) log.notice('Ready to accept connections');
  };
  host.spawnListeners.push((p) => {
    if (!(p instanceof RedisProcess)) return;
    spawnedAt = performance.now();
    log.role = 'M';
    // Like Redis, the port is bound before the files load, then the logo
    // (with the mode and port in it) is printed: a server that then fails to
    // load has shown its pid, and a client that connects as soon as it sees
    // the pid waits in the backlog (Redis's test suite does both).
    if (settings.port !== 0) early = listenEarly(settings.bind.map(bytesToUtf8), settings.port);
    if (!showLogo(p, logfile)) log.notice(`Running mode=standalone, port=${settings.port}.`);
    else if (early !== null) log.raw(logo(settings.port));
    p.logListeners.push((level, text, childPid) => {
      if (STARTUP_LINES.has(text)) return;
      if (text === 'Ready to accept connections') {
        loadedFiles = true;
        return ready();
      }
      // Redis marks a replica's lines with S, the fork child's with C.
      log.role = childPid !== undefined ? 'C' : p.server.replication.masterHost !== null ? 'S' : 'M';
      if (text.startsWith('Done loading RDB')) rdbLoadedAt = performance.now();
      const line = wallLoadingTime(text, (text.startsWith('DB loaded from disk') ? rdbLoadedAt : performance.now()) - spawnedAt);
      if (level === 'warning') log.warning(line);
      else if (level === 'notice') log.notice(line);
      else log.verbose(line);
    });
    p.stdoutListeners.push((text) => stdout(text));
  });
  const proc = world.startRedis('redis', {
    port: settings.port,
    // Like redis-server, the data directory is where it was started unless configured.
    config: { dir: process.cwd(), ...settings.emulator },
    seed: randomInt(2 ** 31),
    ...(settings.configFile === null ? {} : { configFile: settings.configFile, configFileValues: settings.hostValues }),
  });
  const redis = proc.server;
  if (!proc.alive) {
    closeEarly(early);
    return proc.exitCode ?? 1;
  }
  const driver = new NodeWorldDriver(world, { clock });
  // Connections the server opens itself (a replica to its primary) are real TCP.
  proc.dialer = tcpDialer(world.kernel, (fn) => driver.input(fn));
  driver.start();
  const tcp = new RedisTcpServer(proc, driver, {
    port: settings.port,
    bind: settings.bind.map(bytesToUtf8),
    log,
    early,
    unixsocket: bytesToUtf8(redis.config.get('unixsocket')),
  });
  if (!(await listenOrStop(tcp, driver, log))) return 1;
  const pidfile = bytesToUtf8(settings.pidfile);
  if (pidfile !== '') {
    try {
      writeFileSync(pidfile, `${process.pid}\n`);
    } catch {
      log.warning(`Failed to write PID file: ${pidfile}`);
    }
  }
  listening = true;
  ready();

  let done: Promise<void> | null = null;
  // SHUTDOWN ends the simulated process; the Node server follows it.
  proc.exitListeners.push(() => {
    void running.shutdown().then(() => opts.onShutdownCommand?.());
  });
  const running: RunningServer = {
    redis,
    tcp,
    settings,
    log,
    shutdown() {
      done ??= (async () => {
        // SHUTDOWN from a client was logged by the process itself.
        if (proc.alive) log.warning('User requested shutdown...');
        await tcp.stop();
        driver.stop();
        if (pidfile !== '') rmSync(pidfile, { force: true });
        if (proc.alive) log.warning('Redis is now ready to exit, bye bye...');
      })();
      return done;
    },
  };
  return running;
}

/** The process entry: runs until SIGINT or SIGTERM. */
export async function main(): Promise<void> {
  useHostByteCodec(latin1Codec);
  useHostSha1(hostSha1);
  if (isSentinelMode(process.argv[1], process.argv.slice(2))) {
    await sentinelMain(process.argv.slice(2));
    return;
  }
  const running = await runServer(process.argv.slice(2), { onShutdownCommand: () => process.exit(0) });
  if (typeof running === 'number') {
    process.exitCode = running;
    return;
  }
  let signalled = false;
  const onSignal = (name: string): void => {
    if (signalled) {
      // A second signal while shutting down: leave at once, as Redis does.
      process.exit(1);
    }
    signalled = true;
    const msg = `${process.pid}:signal-handler (${Math.floor(Date.now() / 1000)}) Received ${name} scheduling shutdown...\n`;
    if (running.settings.logfile === '') process.stdout.write(msg);
    else appendFileSync(bytesToUtf8(running.settings.logfile), msg);
    // The simulated server shuts down as redis-server does on a signal
    // (saving first when save rules are set); the Node process follows it.
    const proc = running.tcp.process;
    if (proc.alive) proc.signal(name === 'SIGINT' ? 'INT' : 'TERM');
    else void running.shutdown().then(() => process.exit(0));
  };
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));
}
