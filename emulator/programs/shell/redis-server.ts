import { bytesFromArray } from '../../resp/bytes.js';
import { absolutePath, loadServerConfig, type ConfigSource } from '../../server/config-loader.js';
import type { FileSystem } from '../../sim/disk-api.js';
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

/**
 * The configuration redis-server reads at start (emulator/server/config-loader.ts),
 * from the host's disk, in a shell whose working directory is `cwd`.
 * Standard input is the terminal, with nothing typed: `-` adds no lines.
 */
function loadFromArgs(disk: FileSystem, cwd: string, args: readonly string[]): LoadResult {
  const source = diskConfigSource(disk, cwd);
  const loaded = loadServerConfig(args, source);
  if (!loaded.ok) return { fatal: loaded.logged ? loaded.message : `${loaded.message}\n`, logged: loaded.logged };
  const config = { ...loaded.config.values };
  if (config.dir === undefined) config.dir = source.cwd();
  const port = Number(config.port ?? '6379');
  const unixSocket = config.unixsocket !== undefined && config.unixsocket !== '' ? absolutePath(source.cwd(), config.unixsocket) : undefined;
  delete config.port;
  return { port, unixSocket, config, ...(loaded.config.configFile === null ? {} : { configFile: loaded.config.configFile }) };
}

/** A host's disk as what the configuration reader needs; `dir` moves this reader's working directory only. */
function diskConfigSource(disk: FileSystem, startDir: string): ConfigSource {
  let cwd = startDir;
  const absolute = (path: string): string => absolutePath(cwd, path);
  return {
    readFile(path) {
      try {
        // fopen() of a directory succeeds and the reads return nothing.
        if (disk.stat(absolute(path)).isDirectory) return { text: '' };
        return { text: bytesFromArray(disk.readFile(absolute(path))) };
      } catch (e) {
        return { error: errnoText(e) };
      }
    },
    readStdin: () => '',
    glob(pattern) {
      const full = absolute(pattern);
      const cut = full.lastIndexOf('/');
      const dir = cut <= 0 ? '/' : full.slice(0, cut);
      const base = full.slice(cut + 1);
      try {
        return disk
          .readdir(dir)
          .filter((n) => globMatches(base, n))
          .sort()
          .map((n) => join(dir, n));
      } catch {
        return [];
      }
    },
    chdir(path) {
      const to = absolute(path);
      try {
        if (!disk.stat(to).isDirectory) return 'Not a directory';
      } catch (e) {
        return errnoText(e);
      }
      cwd = to;
      return null;
    },
    cwd: () => cwd,
    touchLog(path) {
      try {
        disk.appendFile(absolute(path), new Uint8Array(0));
        return null;
      } catch (e) {
        return errnoText(e);
      }
    },
  };
}
