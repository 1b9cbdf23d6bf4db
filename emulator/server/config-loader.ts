import { asciiLower } from '../resp/bytes.js';
import { splitArgs } from '../resp/split-args.js';
import { normalizePath } from '../sim/disk-path.js';
import { commandFacts } from './command-table.js';
import { configFromCommandLine, readConfigText } from './command-line.js';
import { CONF } from './config-params.js';
import { lookupParam } from './config.js';

/**
 * redis-server's configuration at start, read once for every place a
 * server starts from a command line (the shell's redis-server, npm run
 * server): the config file, standard input, then the `--name value`
 * options as extra lines (src/server.c main), parsed with
 * loadServerConfigFromString's rules (src/config.c): quoting, include,
 * rename-command, module options, and the first error ends the start with
 * "*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***", its line and reason.
 */
export const CONFIG_REDIS_VERSION = '7.0.15';

/** What reading a configuration needs from the machine it runs on; paths and texts are byte strings. */
export interface ConfigSource {
  /** The file's contents, or why it cannot be opened (strerror). A directory reads as nothing, as fopen() of one does. */
  readFile(path: string): { text: string } | { error: string };
  /** Standard input's text, for `-` on the command line. */
  readStdin(): string;
  /** The paths a pattern with wildcards in its last part matches, sorted, like glob(3). */
  glob(pattern: string): string[];
  /** Makes `path` the working directory (the `dir` directive): null, or why not (strerror). */
  chdir(path: string): string | null;
  cwd(): string;
  /** Opens the log file for appending, creating it, and closes it: null, or why not (strerror). */
  touchLog(path: string): string | null;
}

/** A configuration that lets the server start. */
export interface StartConfig {
  /** The config file's absolute path, when the command line named one (CONFIG REWRITE writes there). */
  configFile: string | null;
  /** Startup values of the parameters the emulator models, by canonical name (save's points joined by spaces). */
  values: Record<string, string>;
  /** Directives accepted and checked but not applied (rename-command, user, loadmodule), in the order first seen. */
  unapplied: string[];
  /** Whether standard input was read (`-`). */
  fromStdin: boolean;
}

/** The start, or the fatal error: `logged` when redis-server writes it to its log (a file it cannot open), else to standard error. */
export type ConfigLoad = { ok: true; config: StartConfig } | { ok: false; message: string; logged: boolean };

class FatalConfig {
  constructor(
    readonly message: string,
    readonly logged: boolean,
  ) {}
}

/**
 * Reads redis-server's arguments (without the program name; not -v or -h,
 * which the caller answers itself).
 *
 *   loadServerConfig(['/etc/redis/redis.conf', '--port', '6380'], source)
 */
export function loadServerConfig(args: readonly string[], source: ConfigSource): ConfigLoad {
  const parsed = configFromCommandLine(args);
  // main() keeps the file's absolute path (getAbsolutePath) and reads it there, before `dir` moves the process.
  const configFile = parsed.configFile === null ? null : absolutePath(source.cwd(), parsed.configFile);
  const loader = new Loader(source);
  try {
    let text = '';
    if (configFile !== null) text += loader.readConfig(configFile);
    if (parsed.fromStdin) text += source.readStdin();
    text += '\n' + parsed.options;
    loader.load(text);
    return { ok: true, config: { configFile, fromStdin: parsed.fromStdin, ...loader.finish() } };
  } catch (e) {
    if (e instanceof FatalConfig) return { ok: false, message: e.message, logged: e.logged };
    throw e;
  }
}

/** A path made absolute against the working directory, with "." and ".." parts resolved. */
export function absolutePath(cwd: string, path: string): string {
  return normalizePath(path.startsWith('/') ? path : `${cwd}/${path}`);
}

class Loader {
  private readonly values = new Map<string, string>();
  private readonly unapplied: string[] = [];
  /** Commands renamed away, and the names they took (rename-command). */
  private readonly renamedAway = new Set<string>();
  private readonly renamedTo = new Set<string>();
  /** Save points after the first `save` line, which drops the defaults. */
  private savePoints: string[] | null = null;

  constructor(private readonly source: ConfigSource) {}

  /** The text of a config file, or of every file a pattern matches (none is no error, for empty conf.d folders). */
  readConfig(path: string): string {
    if (/[*?[]/.test(path)) {
      let text = '';
      for (const p of this.source.glob(path)) text += this.readOne(p);
      return text;
    }
    return this.readOne(path);
  }

  private readOne(path: string): string {
    const r = this.source.readFile(path);
    if ('error' in r) throw new FatalConfig(`Fatal error, can't open config file '${path}': ${r.error}`, true);
    return r.text;
  }

  /** loadServerConfigFromString: every line, then the checks that follow them (an include runs them for its own text). */
  load(text: string): void {
    const fatal = readConfigText(text, CONFIG_REDIS_VERSION, (argv) => this.directive(argv));
    if (fatal !== null) throw new FatalConfig(fatal, false);
    const logfile = this.values.get('logfile') ?? '';
    if (logfile !== '') {
      const err = this.source.touchLog(logfile);
      if (err !== null) this.fatalAfterLines(`Can't open the log file: ${err}`);
    }
    if (this.values.get('cluster-enabled') === 'yes' && (this.values.get('replicaof') ?? '') !== '') {
      this.fatalAfterLines('replicaof directive not allowed in cluster mode');
    }
  }

  /** An error found after the last line: the block names no line. */
  private fatalAfterLines(why: string): never {
    throw new FatalConfig(`\n*** FATAL CONFIG FILE ERROR (Redis ${CONFIG_REDIS_VERSION}) ***\n${why}`, false);
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
      this.load(this.readConfig(argv[1]!));
      return null;
    }
    if (name === 'rename-command' && argv.length === 3) return this.renameCommand(argv[1]!, argv[2]!);
    if ((name === 'user' || name === 'loadmodule') && argv.length >= 2) {
      this.notApplied(name);
      return null;
    }
    if (name.includes('.')) return argv.length < 2 ? 'Module config specified without value' : null;
    if (name === 'sentinel') return argv.length !== 1 ? 'sentinel directive while not in sentinel mode' : null;
    return 'Bad directive or wrong number of arguments';
  }

  private notApplied(name: string): void {
    if (!this.unapplied.includes(name)) this.unapplied.push(name);
  }

  /**
   * rename-command checks its names against the command table as it stands
   * after the renames before it; the server keeps its commands' names.
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
    this.notApplied('rename-command');
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
      const err = this.source.chdir(values[0]!);
      if (err !== null) return err;
      this.values.set('dir', this.source.cwd());
      return null;
    }
    const current = this.values.get(param.name) ?? param.default;
    const parsed = param.parse(values, current);
    if (typeof parsed !== 'string') return parsed.error;
    this.values.set(param.name, parsed);
    return null;
  }

  finish(): Pick<StartConfig, 'values' | 'unapplied'> {
    const values: Record<string, string> = {};
    for (const [k, v] of this.values) values[k] = v;
    if (this.savePoints !== null) values.save = this.savePoints.join(' ');
    return { values, unapplied: this.unapplied };
  }
}
