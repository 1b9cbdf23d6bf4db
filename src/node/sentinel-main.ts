/**
 * `npm run server -- /path/sentinel.conf --sentinel` (or the bundle run as
 * redis-sentinel): the emulator's Sentinel as a process of this machine.
 * Redis runs Sentinel as redis-server in sentinel mode (checkForSentinelMode
 * in src/server.c: the program is called redis-sentinel, or an argument is
 * --sentinel); here it is a sentinel-mode process on a simulated host whose
 * world runs in real time, answering real TCP clients, writing its state
 * back into the real config file, and watching servers over real TCP.
 */
import { randomInt } from 'node:crypto';
import { accessSync, appendFileSync, constants, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { RedisProcess } from '../../emulator/process/index.js';
import { configWords, parseSentinelConfig, registerSentinel, sentinelConfigText, SentinelConfigError } from '../../emulator/sentinel/index.js';
import { listenOrStop, nativeWorld } from './native-world.js';
import { ServerLog } from './server-log.js';
import { versionLine, REDIS_VERSION, type LogLevel } from './server-config.js';
import { RedisTcpServer } from './tcp-server.js';
import { tcpDialer } from './tcp-dialer.js';
import { NodeWorldDriver } from './world-driver.js';

/** Whether a command line asks for sentinel mode (checkForSentinelMode): the program's name or a --sentinel argument. */
export function isSentinelMode(programPath: string | undefined, argv: readonly string[]): boolean {
  const name = (programPath ?? '').split('/').pop() ?? '';
  return name.startsWith('redis-sentinel') || argv.includes('--sentinel');
}

/**
 * The options after the config file as config lines, as main() in
 * src/server.c builds them: each `--name` starts a line, the words after it
 * follow on that line; `--sentinel` itself is no option.
 */
export function commandLineConfig(args: readonly string[]): string {
  const lines: string[] = [];
  for (const a of args) {
    if (a === '--sentinel') continue;
    if (a.startsWith('--')) lines.push(a.slice(2));
    else if (lines.length !== 0) lines[lines.length - 1] += ` ${/[\s"]/.test(a) || a === '' ? JSON.stringify(a) : a}`;
  }
  return lines.map((l) => l + '\n').join('');
}

export interface RunningSentinel {
  readonly tcp: RedisTcpServer;
  readonly process: RedisProcess;
  shutdown(): Promise<void>;
}

/**
 * Starts a sentinel from its command line. Resolves the running sentinel,
 * or the exit status when it could not start (as redis-sentinel, the
 * reason goes to the log).
 */
export async function runSentinel(argv: readonly string[], opts: { stdout?: (text: string) => void } = {}): Promise<RunningSentinel | number> {
  const stdout = opts.stdout ?? ((t: string) => void process.stdout.write(t));
  if (argv[0] === '-v' || argv[0] === '--version') {
    stdout(versionLine() + '\n');
    return 0;
  }
  // Until the file is read, lines go to standard output; then, as Redis's serverLog, to the logfile when one is set.
  let logTo: (line: string) => void = stdout;
  const log = new ServerLog((line) => logTo(line));
  const file = argv[0] !== undefined && !argv[0].startsWith('--') ? resolve(argv[0]) : null;
  // sentinelCheckConfigFile: Sentinel rewrites its file, so it needs one it may write.
  if (file === null) {
    log.warning('Sentinel needs config file on disk to save state. Exiting...');
    return 1;
  }
  try {
    accessSync(file, constants.W_OK);
  } catch (e) {
    log.warning(`Sentinel config file ${file} is not writable: ${strerror(e as NodeJS.ErrnoException)}. Exiting...`);
    return 1;
  }
  const extraConfig = commandLineConfig(argv.slice(1));
  const text = sentinelConfigText(readFileSync(file, 'latin1'), extraConfig);
  let port: number;
  const bind: string[] = [];
  let logfile = '';
  let dir = '.';
  try {
    const parsed = parseSentinelConfig(text);
    port = parsed.port;
    for (const line of parsed.otherLines) {
      const words = configWords(line.trim());
      const name = words[0]?.toLowerCase();
      if (name === 'bind') bind.splice(0, bind.length, ...words.slice(1));
      if (name === 'logfile') logfile = words[1] ?? '';
      if (name === 'dir') dir = words[1] ?? '.';
      if (name === 'loglevel') log.level = (words[1] ?? 'notice') as LogLevel;
    }
  } catch (e) {
    // loadSentinelConfigFromQueue's report, on standard error.
    const where = e instanceof SentinelConfigError ? `Reading the configuration file, at line ${e.lineNumber}\n>>> '${e.line}'\n` : '';
    process.stderr.write(`\n*** FATAL CONFIG FILE ERROR (Redis ${REDIS_VERSION}) ***\n${where}${(e as Error).message}\n`);
    return 1;
  }

  // Redis changes to `dir` as it reads it, so a relative logfile is found there.
  if (logfile !== '') {
    const path = resolve(process.cwd(), dir, logfile);
    logTo = (line) => {
      try {
        appendFileSync(path, line);
      } catch {
        // serverLogRaw drops a line it cannot write.
      }
    };
  }
  const { clock, world, host } = nativeWorld('sentinel');
  log.role = 'X';
  host.spawnListeners.push((p) => {
    if (!(p instanceof RedisProcess) || logfile !== '') return;
    // Without a logfile the lines go to standard output, as Redis's do.
    p.logListeners.push((level, line) => log.log(level === 'debug' ? 'debug' : level, line));
  });
  registerSentinel(world);
  log.warning('oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo');
  log.warning(`Redis version=${REDIS_VERSION}, bits=64, commit=00000000, modified=0, pid=${process.pid}, just started`);
  log.notice('This is the redis-workbook emulator of Redis 7.0 Sentinel (TypeScript), not the real redis-sentinel.');
  log.notice(`Running mode=sentinel, port=${port}.`);
  let proc: RedisProcess;
  try {
    proc = world.spawn('sentinel', 'redis-sentinel', { config: file, extraConfig, cwd: process.cwd(), seed: randomInt(2 ** 31) }) as RedisProcess;
  } catch (e) {
    log.warning((e as Error).message);
    return 1;
  }
  const driver = new NodeWorldDriver(world, { clock });
  // Every instance Sentinel watches is reached over real TCP.
  proc.dialer = tcpDialer(world.kernel, (fn) => driver.input(fn));
  driver.start();
  const tcp = new RedisTcpServer(proc, driver, { port, bind: bind.length === 0 ? ['127.0.0.1'] : bind, log });
  if (!(await listenOrStop(tcp, driver, log))) return 1;
  let done: Promise<void> | null = null;
  const running: RunningSentinel = {
    tcp,
    process: proc,
    shutdown() {
      done ??= (async () => {
        await tcp.stop();
        if (proc.alive) proc.signal('KILL');
        driver.stop();
      })();
      return done;
    },
  };
  proc.exitListeners.push(() => void running.shutdown());
  return running;
}

function strerror(e: NodeJS.ErrnoException): string {
  if (e.code === 'ENOENT') return 'No such file or directory';
  if (e.code === 'EACCES') return 'Permission denied';
  if (e.code === 'EROFS') return 'Read-only file system';
  return e.message;
}

/** The process entry in sentinel mode: runs until SIGINT or SIGTERM, or SHUTDOWN. */
export async function sentinelMain(argv: readonly string[]): Promise<void> {
  const running = await runSentinel(argv);
  if (typeof running === 'number') {
    process.exitCode = running;
    return;
  }
  const stop = (): void => void running.shutdown().then(() => process.exit(0));
  running.process.exitListeners.push(stop);
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
