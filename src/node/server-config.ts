/**
 * redis-server's command line and configuration files as `npm run server`
 * takes them: the emulator's one reader (emulator/server/config-loader.ts,
 * the same the shell's redis-server uses) over this machine's files, and
 * what this process does itself (listen, log, pid file) taken from its
 * result. Arguments and file contents are byte strings, like everything the
 * emulator handles; paths go back to UTF-8 at the ConfigSource boundary.
 */
import { loadServerConfig, type ConfigSource } from '../../emulator/index.js';

export type { ConfigSource } from '../../emulator/index.js';

export type LogLevel = 'debug' | 'verbose' | 'notice' | 'warning';

/** Everything a start needs: what the process does itself, and the emulator's configuration. */
export interface ServerSettings {
  configFile: string | null;
  port: number;
  /** Addresses to listen on; a leading '-' means "skip it if unavailable". */
  bind: string[];
  logfile: string;
  loglevel: LogLevel;
  pidfile: string;
  daemonize: boolean;
  /** Startup values for the emulator's own parameters (RedisServer's `config`). */
  emulator: Record<string, string>;
  /**
   * Directives this process handles itself and keeps from the emulator's
   * parameters (logfile: the process writes the log), as CONFIG REWRITE
   * writes them back.
   */
  hostValues: Record<string, string>;
  /** Warnings to log once logging is set up. */
  warnings: string[];
}

export type StartRequest =
  | { kind: 'run'; settings: ServerSettings }
  | { kind: 'version' }
  | { kind: 'usage' }
  /** A configuration error: `message` goes to standard error, or to the log when `logged`. */
  | { kind: 'fatal'; message: string; logged: boolean };

export const REDIS_VERSION = '7.0.15';

/**
 * Turns redis-server's arguments (without the program name) into a start
 * request.
 *
 *   parseServerArgs(['--port', '6380', '--save', ''], source)
 */
export function parseServerArgs(args: readonly string[], source: ConfigSource): StartRequest {
  if (args.length >= 1) {
    const first = args[0]!;
    if (first === '-v' || first === '--version') return { kind: 'version' };
    if (first === '--help' || first === '-h') return { kind: 'usage' };
  }
  const loaded = loadServerConfig(args, source);
  if (!loaded.ok) return { kind: 'fatal', message: loaded.message, logged: loaded.logged };
  const { configFile, values, unapplied, fromStdin } = loaded.config;
  // The process writes the log itself; the emulator keeps the value for CONFIG REWRITE only.
  const { logfile, ...emulator } = values;
  const warnings: string[] = [];
  if (fromStdin) warnings.push('Reading config from stdin');
  for (const name of unapplied) warnings.push(`The emulator ignores '${name}' directives.`);
  return {
    kind: 'run',
    settings: {
      configFile,
      port: Number(values.port ?? '6379'),
      bind: values.bind === undefined ? ['127.0.0.1'] : values.bind.split(' ').filter((a) => a !== ''),
      logfile: logfile ?? '',
      loglevel: (values.loglevel ?? 'notice') as LogLevel,
      pidfile: values.pidfile ?? '',
      daemonize: values.daemonize === 'yes',
      emulator,
      hostValues: logfile === undefined ? {} : { logfile },
      warnings,
    },
  };
}

/** redis-server --version, with the same fields tools parse (v=...). */
export function versionLine(): string {
  return `Redis server v=${REDIS_VERSION} sha=00000000:0 malloc=libc bits=64 build=7265646973776b62`;
}

export function usageText(program: string): string {
  return [
    `Usage: ${program} [/path/to/redis.conf] [options] [-]`,
    `       ${program} - (read config from stdin)`,
    `       ${program} -v or --version`,
    `       ${program} -h or --help`,
    '',
    'Examples:',
    `       ${program} (run the server with default conf)`,
    `       echo 'maxmemory 128mb' | ${program} -`,
    `       ${program} /etc/redis/6379.conf`,
    `       ${program} --port 7777`,
    `       ${program} /etc/myredis.conf --loglevel verbose -`,
    `       ${program} /etc/myredis.conf --loglevel verbose`,
    '',
  ].join('\n');
}
