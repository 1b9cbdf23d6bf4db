import { bytesFromArray } from '../../resp/bytes.js';
import { splitArgs } from '../../resp/split-args.js';
import { asciiLower } from '../../resp/bytes.js';
import { commandFacts } from '../../server/command-table.js';
import { CONF } from '../../server/config-params.js';
import { lookupParam } from '../../server/config.js';
import { normalizePath } from '../../sim/disk-path.js';
import type { FileSystem } from '../../sim/disk-api.js';
import { configFromCommandLine, readConfigText } from '../../server/command-line.js';
import type { World } from '../../world/world.js';
import type { Command, CommandContext } from './context.js';
import { strftime } from './dates.js';
import { errnoText } from './errors.js';
import { join } from './files.js';
import { TerminalProcess } from './processes.js';
import { globMatches } from './words.js';
import { startSentinel } from './redis-sentinel.js';

/**
 * redis-server 7.0.15 as a shell command: the command line and config
 * files are read the way src/server.c main() and src/config.c
 * loadServerConfigFromString() read them, with the same fatal errors; then
 * the server starts in the background, as with --daemonize yes, whatever
 * the configuration says (a daemonized Redis prints nothing, and neither
 * does this).
 */
export const REDIS_VERSION = '7.0.15';

export const redisServer: Command = (ctx, args) => {
  const first = args[0];
  if (first === '-v' || first === '--version') {
    ctx.out(`Redis server v=${REDIS_VERSION} sha=00000000:0 malloc=jemalloc-5.3.0 bits=64 build=ae4d7c971a948f0\n`);
    return 0;
  }
  if (first === '--help' || first === '-h') {
    ctx.err(USAGE);
    return 1;
  }
  if (first === '--test-memory' || first === '--check-system') {
    ctx.err(`redis-server: ${first} is not simulated\n`);
    return 1;
  }
  if (args.includes('--sentinel')) return startSentinel(ctx, 'redis-server', args.filter((a) => a !== '--sentinel'));
  // The process that reads the configuration; a daemonized server forks a
  // child and this one exits, so the server gets the next pid.
  const proc = ctx.host.spawn(
    new TerminalProcess(ctx.host, 'redis-server', ['redis-server', ...args], ttyOf(ctx), ctx.shell.shellPid, ctx.world.kernel.now),
  );
  try {
    const loaded = loadFromArgs(ctx.host.disk, ctx.cwd, args);
    if ('fatal' in loaded) {
      if (loaded.logged) ctx.out(logLine(proc.pid, ctx.world.kernel.now, loaded.fatal));
      else ctx.err(loaded.fatal);
      proc.exit(1);
      return 1;
    }
    startDaemon(ctx.world, ctx.host.name, loaded, args, ctx.cwd);
    proc.exit(0);
    return 0;
  } catch (e) {
    proc.exit(1);
    throw e;
  }
};

/**
 * Starts redis-server on a host as if `redis-server <args>` were typed in a
 * shell whose working directory is `cwd`: the config file is read again,
 * as it is now. Returns null once the server is started (or has failed
 * the way a daemon fails, in its log), else the fatal error the command
 * would print.
 *
 *   startRedisFromCommandLine(world, 'redis', ['/etc/redis/redis.conf', '--port', '6380'], '/root');
 */
export function startRedisFromCommandLine(world: World, hostName: string, args: readonly string[], cwd: string): string | null {
  const host = world.host(hostName);
  if (!host.powered) return `${hostName} is powered off`;
  const loaded = loadFromArgs(host.disk, cwd, args);
  if ('fatal' in loaded) return loaded.fatal;
  startDaemon(world, hostName, loaded, args, cwd);
  return null;
}

function startDaemon(world: World, hostName: string, loaded: LoadedConfig, args: readonly string[], cwd: string): void {
  try {
    world.startRedis(hostName, {
      port: loaded.port,
      unixSocket: loaded.unixSocket,
      config: loaded.config,
      commandLine: { args: [...args], cwd },
      ...(loaded.configFile === undefined ? {} : { configFile: loaded.configFile }),
    });
  } catch {
    // A daemon that cannot bind its port logs why (the trace has the
    // line) and exits; its parent has already returned success.
  }
}

function ttyOf(ctx: CommandContext): string {
  const shell = ctx.host.process(ctx.shell.shellPid);
  return shell instanceof TerminalProcess ? shell.tty : '?';
}

const USAGE = `Usage: ./redis-server [/path/to/redis.conf] [options] [-]
       ./redis-server - (read config from stdin)
       ./redis-server -v or --version
       ./redis-server -h or --help
       ./redis-server --test-memory <megabytes>
       ./redis-server --check-system

Examples:
       ./redis-server (run the server with default conf)
       echo 'maxmemory 128mb' | ./redis-server -
       ./redis-server /etc/redis/6379.conf
       ./redis-server --port 7777
       ./redis-server --port 7777 --replicaof 127.0.0.1 8888
       ./redis-server /etc/myredis.conf --loglevel verbose -
       ./redis-server /etc/myredis.conf --loglevel verbose

Sentinel mode:
       ./redis-server /etc/sentinel.conf --sentinel
`;

/** serverLogRaw's format before the server knows its role: "pid:C 01 Jan 2026 00:00:00.000 # text". */
function logLine(pid: number, nowUs: number, text: string): string {
  const ms = String(Math.floor(nowUs / 1000) % 1000).padStart(3, '0');
  return `${pid}:C ${strftime('%d %b %Y %H:%M:%S', nowUs)}.${ms} # ${text}\n`;
}

export interface LoadedConfig {
  port: number;
  unixSocket: string | undefined;
  /** Startup values for the server, by parameter name. */
  config: Record<string, string>;
  /** The config file's absolute path, when the command line named one. */
  configFile?: string;
}

type LoadResult = LoadedConfig | { fatal: string; logged: boolean };

class Fatal {
  constructor(
    readonly message: string,
    readonly logged: boolean,
  ) {}
}

/**
 * The configuration text main() builds: the config file, then each
 * `--name value...` option as a line of its own, values quoted with
 * sdscatrepr.
 */
function loadFromArgs(disk: FileSystem, cwd: string, args: readonly string[]): LoadResult {
  // Standard input is the terminal, with nothing typed: `-` adds no lines.
  const parsed = configFromCommandLine(args);
  const configFile = parsed.configFile === null ? null : normalizePath(parsed.configFile.startsWith('/') ? parsed.configFile : join(cwd, parsed.configFile));
  const options = parsed.options;
  const loader = new Loader(disk, cwd);
  try {
    let text = '';
    if (configFile !== null) text += loader.readConfig(configFile);
    text += '\n' + options;
    loader.load(text);
    const loaded = loader.finish();
    return configFile === null ? loaded : { ...loaded, configFile };
  } catch (e) {
    if (e instanceof Fatal) return { fatal: e.message, logged: e.logged };
    throw e;
  }
}

class Loader {
  private readonly values = new Map<string, string>();
  /** Commands renamed away, and the names they took (rename-command). */
  private readonly renamedAway = new Set<string>();
  private readonly renamedTo = new Set<string>();
  /** Save points after the first `save` line of this load, which drops the defaults. */
  private savePoints: string[] | null = null;

  constructor(
    private readonly disk: FileSystem,
    /** The process's working directory; `dir` changes it. */
    private cwd: string,
  ) {}

  /** The text of a config file (or of every file a glob in its last part matches). */
  readConfig(path: string): string {
    if (/[*?[]/.test(path)) {
      let text = '';
      for (const p of this.glob(path)) text += this.readOne(p);
      return text;
    }
    return this.readOne(path);
  }

  private readOne(path: string): string {
    try {
      if (this.disk.stat(path).isDirectory) {
        // fopen() of a directory succeeds and the reads return nothing.
        return '';
      }
      return bytesFromArray(this.disk.readFile(path));
    } catch (e) {
      throw new Fatal(`Fatal error, can't open config file '${path}': ${errnoText(e)}`, true);
    }
  }

  private glob(pattern: string): string[] {
    const cut = pattern.lastIndexOf('/');
    const dir = cut <= 0 ? '/' : pattern.slice(0, cut);
    const base = pattern.slice(cut + 1);
    try {
      return this.disk
        .readdir(dir)
        .filter((n) => globMatches(base, n))
        .map((n) => join(dir, n));
    } catch {
      return [];
    }
  }

  private absolute(path: string): string {
    return normalizePath(path.startsWith('/') ? path : join(this.cwd, path));
  }

  load(text: string): void {
    const fatal = readConfigText(text, REDIS_VERSION, (argv) => this.directive(argv));
    if (fatal !== null) throw new Fatal(`${fatal}\n`, false);
  }

  /** One line: null, or the error that stops the server. */
  private directive(argv: string[]): string | null {
    const name = argv[0]!;
    const param = lookupParam(name);
    if (param !== undefined) {
      const multi = (param.flags & CONF.MULTI_ARG) !== 0;
      if (!multi && argv.length !== 2) return 'wrong number of arguments';
      let values = argv.slice(1);
      // A multi-argument parameter given as one word is split again, so
      // that `--save "900 1"` works; an empty word stays (save "").
      if (multi && argv.length === 2 && argv[1] !== '') values = splitArgs(argv[1]!) ?? [];
      return this.apply(param.name, values);
    }
    if ((name === 'list-max-ziplist-entries' || name === 'list-max-ziplist-value' || name === 'lua-replicate-commands') && argv.length === 2) {
      return null;
    }
    if (name === 'include' && argv.length === 2) {
      this.load(this.readConfig(this.absolute(argv[1]!)));
      return null;
    }
    if (name === 'rename-command' && argv.length === 3) return this.renameCommand(argv[1]!, argv[2]!);
    if ((name === 'user' || name === 'loadmodule') && argv.length >= 2) return null;
    if (name.includes('.')) return argv.length < 2 ? 'Module config specified without value' : null;
    if (name === 'sentinel') return argv.length !== 1 ? 'sentinel directive while not in sentinel mode' : null;
    return 'Bad directive or wrong number of arguments';
  }

  /**
   * rename-command checks its names as Redis does; the renamed table is
   * not passed on to the server, which keeps its commands' names.
   */
  private renameCommand(from: string, to: string): string | null {
    const exists = (name: string): boolean => {
      const key = asciiLower(name);
      if (this.renamedTo.has(key)) return true;
      return !key.includes('|') && commandFacts(key) !== undefined && !this.renamedAway.has(key);
    };
    if (!exists(from)) return 'No such command in rename-command';
    const key = asciiLower(from);
    if (this.renamedTo.has(key)) this.renamedTo.delete(key);
    else this.renamedAway.add(key);
    if (to !== '') {
      if (exists(to)) return 'Target command name already exists';
      this.renamedTo.add(asciiLower(to));
    }
    return null;
  }

  private apply(name: string, values: string[]): string | null {
    const param = lookupParam(name)!;
    if (name === 'save') {
      if (values.length === 1 && values[0] === '') {
        this.savePoints = [];
        return null;
      }
      const parsed = param.parse(values, param.default);
      if (typeof parsed !== 'string') return parsed.error;
      this.savePoints = [...(this.savePoints ?? []), ...(parsed === '' ? [] : parsed.split(' '))];
      return null;
    }
    if (name === 'dir') {
      if (values.length !== 1) return 'wrong number of arguments';
      const path = this.absolute(values[0]!);
      try {
        if (!this.disk.stat(path).isDirectory) return 'Not a directory';
      } catch (e) {
        return errnoText(e);
      }
      this.cwd = path;
      this.values.set('dir', path);
      return null;
    }
    const current = this.values.get(param.name) ?? param.default;
    const parsed = param.parse(values, current);
    if (typeof parsed !== 'string') return parsed.error;
    this.values.set(param.name, parsed);
    return null;
  }

  finish(): LoadedConfig {
    const logfile = this.values.get('logfile') ?? '';
    if (logfile !== '') {
      // Redis opens the log file once to be sure it can (creating it).
      try {
        this.disk.appendFile(this.absolute(logfile), new Uint8Array(0));
      } catch (e) {
        throw new Fatal(`\n*** FATAL CONFIG FILE ERROR (Redis ${REDIS_VERSION}) ***\nCan't open the log file: ${errnoText(e)}\n`, false);
      }
    }
    if (this.values.get('cluster-enabled') === 'yes' && (this.values.get('replicaof') ?? '') !== '') {
      throw new Fatal(`\n*** FATAL CONFIG FILE ERROR (Redis ${REDIS_VERSION}) ***\nreplicaof directive not allowed in cluster mode\n`, false);
    }
    const config: Record<string, string> = {};
    for (const [k, v] of this.values) config[k] = v;
    if (this.savePoints !== null) config.save = this.savePoints.join(' ');
    if (config.dir === undefined) config.dir = this.cwd;
    const port = Number(config.port ?? '6379');
    const unixSocket = config.unixsocket !== undefined && config.unixsocket !== '' ? this.absolute(config.unixsocket) : undefined;
    delete config.port;
    return { port, unixSocket, config };
  }
}
