/**
 * redis-server's command line and configuration files (src/server.c main,
 * src/config.c loadServerConfigFromString): a config file path first, then
 * `--name value...` options that are appended to the file as extra lines,
 * then one parse of the whole text with Redis's rules and error messages.
 * Arguments and file contents are byte strings, like everything the
 * emulator handles; paths go back to UTF-8 at the ConfigIO boundary.
 */
import { asciiLower, splitArgs } from '../../emulator/index.js';
import { MULTI_ARG_CONFIGS, REDIS_CONFIG_NAMES } from './redis-config-names.js';
import { configFromCommandLine, readConfigText } from '../../emulator/index.js';
import { normalizePath } from '../../emulator/sim/index.js';

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
  /** Real Redis parameters the emulator does not model, set but ignored. */
  ignored: string[];
  /** Warnings to log once logging is set up. */
  warnings: string[];
}

/** How the emulator's own parameters are recognised and checked. */
export interface EmulatorConfigCheck {
  /** Whether the emulator models this parameter (any alias). */
  knows(name: string): boolean;
  /** Null, or why the value is refused (the text after "... - " of a CONFIG SET error). */
  check(name: string, value: string): string | null;
}

/** What the process needs from the world: files, standard input, the working directory. */
export interface ConfigIO {
  readFile(path: string): string;
  readStdin(): string;
  /** Changes the working directory; returns the error text (strerror) or null. */
  chdir(path: string): string | null;
  cwd(): string;
  /** Paths matching a glob (for `include conf.d/*.conf`). */
  glob(pattern: string): string[];
}

export type StartRequest =
  | { kind: 'run'; settings: ServerSettings }
  | { kind: 'version' }
  | { kind: 'usage' }
  /** A configuration error: `message` goes to standard error, or to the log when `logged`. */
  | { kind: 'fatal'; message: string; logged: boolean };

export const REDIS_VERSION = '7.0.15';

/** A fatal error in the configuration, reported like redis-server does. */
class FatalConfigError {
  constructor(
    readonly message: string,
    readonly logged = false,
  ) {}
}

/**
 * Turns redis-server's arguments (without the program name) into a start
 * request.
 *
 *   parseServerArgs(['--port', '6380', '--save', ''], io, check)
 */
export function parseServerArgs(args: readonly string[], io: ConfigIO, check: EmulatorConfigCheck): StartRequest {
  if (args.length >= 1) {
    const first = args[0]!;
    if (first === '-v' || first === '--version') return { kind: 'version' };
    if (first === '--help' || first === '-h') return { kind: 'usage' };
  }
  const { configFile, options, fromStdin } = configFromCommandLine(args);
  // Redis keeps the file's absolute path (getAbsolutePath), taken before `dir` moves the process.
  const absoluteFile = configFile === null ? null : configFile.startsWith('/') ? configFile : normalizePath(`${io.cwd()}/${configFile}`);

  const loader = new ConfigLoader(io, check);
  try {
    let text = '';
    if (configFile !== null) text += loader.readConfigFile(configFile);
    if (fromStdin) {
      loader.settings.warnings.push('Reading config from stdin');
      text += io.readStdin();
    }
    text += '\n' + options;
    loader.load(text);
  } catch (e) {
    if (e instanceof FatalConfigError) return { kind: 'fatal', message: e.message, logged: e.logged };
    throw e;
  }
  loader.settings.configFile = absoluteFile;
  return { kind: 'run', settings: loader.finish() };
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

const LOG_LEVELS: readonly LogLevel[] = ['debug', 'verbose', 'notice', 'warning'];

/** Directives the process handles itself rather than the emulator. */
const HOST_DIRECTIVES = new Set(['port', 'bind', 'logfile', 'loglevel', 'pidfile', 'daemonize', 'dir', 'save']);

class ConfigLoader {
  readonly settings: ServerSettings = {
    configFile: null,
    port: 6379,
    bind: ['127.0.0.1'],
    logfile: '',
    loglevel: 'notice',
    pidfile: '',
    daemonize: false,
    emulator: {},
    hostValues: {},
    ignored: [],
    warnings: [],
  };
  /** Save points after the first `save` directive of a load (which drops the defaults). */
  private savePoints: string[] | null = null;

  constructor(
    private readonly io: ConfigIO,
    private readonly check: EmulatorConfigCheck,
  ) {}

  readConfigFile(path: string): string {
    if (/[*?[]/.test(path)) {
      let text = '';
      for (const p of this.io.glob(path)) text += this.readOne(p);
      return text;
    }
    return this.readOne(path);
  }

  private readOne(path: string): string {
    try {
      return this.io.readFile(path);
    } catch (e) {
      const why = (e as { code?: string }).code === 'ENOENT' ? 'No such file or directory' : String((e as Error).message);
      throw new FatalConfigError(`Fatal error, can't open config file '${path}': ${why}`, true);
    }
  }

  load(text: string): void {
    const fatal = readConfigText(text, REDIS_VERSION, (argv) => this.directive(argv));
    if (fatal !== null) throw new FatalConfigError(fatal);
  }

  /** Applies one directive; returns an error text or null. */
  private directive(argv: string[]): string | null {
    const name = argv[0]!;
    if (REDIS_CONFIG_NAMES.has(name)) {
      const multi = MULTI_ARG_CONFIGS.has(name);
      if (!multi && argv.length !== 2) return 'wrong number of arguments';
      let values = argv.slice(1);
      if (multi && argv.length === 2 && argv[1] !== '') values = splitArgs(argv[1]!) ?? [];
      return this.apply(name, values);
    }
    if ((name === 'list-max-ziplist-entries' || name === 'list-max-ziplist-value' || name === 'lua-replicate-commands') && argv.length === 2) {
      return null;
    }
    if (name === 'include' && argv.length === 2) {
      this.load(this.readConfigFile(argv[1]!));
      return null;
    }
    if ((name === 'rename-command' && argv.length === 3) || (name === 'user' && argv.length >= 2) || (name === 'loadmodule' && argv.length >= 2)) {
      this.settings.warnings.push(`The emulator ignores '${name}' directives.`);
      return null;
    }
    return 'Bad directive or wrong number of arguments';
  }

  private apply(name: string, values: string[]): string | null {
    const s = this.settings;
    const value = values.join(' ');
    switch (name) {
      case 'port': {
        if (!/^-?\d+$/.test(value)) return 'argument couldn\'t be parsed into an integer';
        const port = Number(value);
        if (port < 0 || port > 65535) return 'argument must be between 0 and 65535 inclusive';
        s.port = port;
        if (this.check.knows('port')) s.emulator.port = String(port);
        return null;
      }
      case 'bind':
        if (values.length > 16) return 'Too many bind addresses specified.';
        s.bind = values;
        this.alsoEmulator('bind', value);
        return null;
      case 'logfile':
        s.logfile = value;
        s.hostValues.logfile = value;
        return null;
      case 'loglevel': {
        const l = asciiLower(value) as LogLevel;
        if (!LOG_LEVELS.includes(l)) return `argument(s) must be one of the following: ${LOG_LEVELS.join(', ')}`;
        s.loglevel = l;
        this.alsoEmulator('loglevel', l);
        return null;
      }
      case 'pidfile':
        s.pidfile = value;
        this.alsoEmulator('pidfile', value);
        return null;
      case 'daemonize': {
        const l = asciiLower(value);
        if (l !== 'yes' && l !== 'no') return 'argument must be \'yes\' or \'no\'';
        s.daemonize = l === 'yes';
        this.alsoEmulator('daemonize', l);
        return null;
      }
      case 'dir': {
        if (values.length !== 1) return 'wrong number of arguments';
        const err = this.io.chdir(values[0]!);
        if (err !== null) return err;
        if (this.check.knows('dir')) s.emulator.dir = this.io.cwd();
        return null;
      }
      case 'save':
        return this.save(values);
    }
    if (this.check.knows(name)) {
      const err = this.check.check(name, value);
      if (err !== null) return err;
      s.emulator[name] = value;
    } else if (!HOST_DIRECTIVES.has(name) && !s.ignored.includes(name)) {
      s.ignored.push(name);
    }
    return null;
  }

  /**
   * A directive the process acts on, kept in the emulator's parameters too,
   * so that CONFIG GET shows it and CONFIG REWRITE writes it back.
   */
  private alsoEmulator(name: string, value: string): void {
    if (this.check.knows(name)) this.settings.emulator[name] = value;
  }

  /** save: the first directive of a load replaces the defaults, later ones add points; "" clears. */
  private save(values: string[]): string | null {
    let points = values;
    let reset = this.savePoints === null;
    if (points.length === 1 && points[0] === '') {
      points = [];
      reset = true;
    }
    if (points.length % 2 !== 0) return 'Invalid save parameters';
    for (let j = 0; j < points.length; j++) {
      const m = /^[\t\n\v\f\r ]*[+-]?\d+$/.exec(points[j]!);
      const v = m ? Number(points[j]) : NaN;
      if (!m || (j % 2 === 0 && v < 1) || (j % 2 === 1 && v < 0)) return 'Invalid save parameters';
    }
    this.savePoints = reset ? [] : this.savePoints!;
    for (const p of points) this.savePoints.push(String(Number(p)));
    return null;
  }

  finish(): ServerSettings {
    if (this.savePoints !== null && this.check.knows('save')) this.settings.emulator.save = this.savePoints.join(' ');
    return this.settings;
  }
}
