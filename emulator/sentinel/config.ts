/**
 * sentinel.conf: the lines redis-sentinel reads at start
 * (sentinelHandleConfiguration in src/sentinel.c) and the lines it writes
 * back when it rewrites the file (rewriteConfigSentinelOption), so that
 * what it learned (its id, the epoch, replicas and other sentinels) survives
 * a restart.
 */
import { repr } from '../resp/bytes.js';
import { RewriteState } from '../server/config-rewrite.js';
import { rewriteServerOptions, serverDirective } from '../server/config-rewrite-options.js';
import { lookupParam } from '../server/config.js';

/** Defaults of src/sentinel.c (SENTINEL_DEFAULT_DOWN_AFTER, SENTINEL_DEFAULT_FAILOVER_TIMEOUT, SENTINEL_DEFAULT_PARALLEL_SYNCS). */
export const DEFAULT_DOWN_AFTER_MS = 30_000;
export const DEFAULT_FAILOVER_TIMEOUT_MS = 180_000;
export const DEFAULT_PARALLEL_SYNCS = 1;

export interface MonitoredMasterConfig {
  name: string;
  ip: string;
  port: number;
  quorum: number;
  downAfterMs: number;
  failoverTimeoutMs: number;
  parallelSyncs: number;
  configEpoch: number;
  leaderEpoch: number;
  knownReplicas: Array<{ ip: string; port: number }>;
  knownSentinels: Array<{ ip: string; port: number; runId: string }>;
  /** The program run for each warning event of this master; null when none. */
  notificationScript: string | null;
  /** The program run at each failover of this master to tell clients of the new address; null when none. */
  clientReconfigScript: string | null;
  /** auth-pass and auth-user: how the links to the master and its replicas authenticate (AUTH); null when not set. */
  authPass: string | null;
  authUser: string | null;
  /**
   * rename-command: the names the master and its replicas know Sentinel's
   * commands by (renamed_commands, matched without regard to case), as
   * [command, renamed] pairs in the order they were given.
   */
  renamedCommands: Array<[string, string]>;
  /** master-reboot-down-after-period: a master that restarted is down until it answers PONG, after this many ms; 0 is off. */
  rebootDownAfterMs: number;
}

/** The options of Sentinel itself that SENTINEL CONFIG GET|SET reaches (sentinelConfigSetCommand). */
export interface SentinelGlobals {
  resolveHostnames: boolean;
  announceHostnames: boolean;
  /** '' when not set: hellos carry the address the link leaves from. */
  announceIp: string;
  /** 0 when not set: hellos carry the port Sentinel listens on. */
  announcePort: number;
  sentinelUser: string;
  sentinelPass: string;
  /** deny-scripts-reconfig: SENTINEL SET may not change a script's path (yes by default). */
  denyScriptsReconfig: boolean;
}

export function defaultGlobals(): SentinelGlobals {
  return { resolveHostnames: false, announceHostnames: false, announceIp: '', announcePort: 0, sentinelUser: '', sentinelPass: '', denyScriptsReconfig: true };
}

/** yesnotoi: "yes" 1, "no" 0, anything else -1; case does not matter. */
export function yesNo(word: string | undefined): boolean | null {
  const w = word?.toLowerCase();
  return w === 'yes' ? true : w === 'no' ? false : null;
}

export interface SentinelConfig {
  port: number;
  globals: SentinelGlobals;
  myid: string | null;
  currentEpoch: number;
  masters: MonitoredMasterConfig[];
  /** Lines that are not sentinel state (port, dir, logfile...), kept as written. */
  otherLines: string[];
}

/** Redis's tokenizer for a config line: words split on blanks, "double quoted" words allowed. */
export function configWords(line: string): string[] {
  const words: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|(\S+)/g;
  for (let m = re.exec(line); m !== null; m = re.exec(line)) words.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2]!);
  return words;
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** Whether `text` is an IP address (sentinel accepts only those unless resolve-hostnames is on). */
export function isIpAddress(text: string): boolean {
  return IPV4.test(text) || (text.includes(':') && /^[0-9a-fA-F:.]+$/.test(text));
}

/** Whether `text` can name a host to look up (resolve-hostnames yes): an address, or a DNS name. */
export function isHostname(text: string): boolean {
  return isIpAddress(text) || /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*$/.test(text);
}

export function newMasterConfig(name: string, ip: string, port: number, quorum: number): MonitoredMasterConfig {
  return {
    name,
    ip,
    port,
    quorum,
    downAfterMs: DEFAULT_DOWN_AFTER_MS,
    failoverTimeoutMs: DEFAULT_FAILOVER_TIMEOUT_MS,
    parallelSyncs: DEFAULT_PARALLEL_SYNCS,
    configEpoch: 0,
    leaderEpoch: 0,
    knownReplicas: [],
    knownSentinels: [],
    notificationScript: null,
    clientReconfigScript: null,
    authPass: null,
    authUser: null,
    renamedCommands: [],
    rebootDownAfterMs: 0,
  };
}

/** Thrown for a line redis-sentinel refuses at start; the text is what it prints after the line. */
export class SentinelConfigError extends Error {
  constructor(
    readonly lineNumber: number,
    readonly line: string,
    readonly reason: string,
  ) {
    super(reason);
  }
}

/** Sentinel.conf's text with the command line's options after it, as loadServerConfig reads them. */
export function sentinelConfigText(fileText: string, extraConfig: string | undefined): string {
  if (extraConfig === undefined || extraConfig === '') return fileText;
  return `${fileText}${fileText === '' || fileText.endsWith('\n') ? '' : '\n'}${extraConfig}`;
}

/** preMonitorCfgName of src/sentinel.c: the options read before any monitor line. */
const PRE_MONITOR = new Set(['announce-ip', 'announce-port', 'deny-scripts-reconfig', 'sentinel-user', 'sentinel-pass', 'current-epoch', 'myid', 'resolve-hostnames', 'announce-hostnames']);

/**
 * Reads sentinel.conf's text. `executable` is access(path, X_OK) for the
 * scripts the file names (without it, every path is taken).
 */
export function parseSentinelConfig(text: string, executable: (path: string) => boolean = () => true): SentinelConfig {
  const config: SentinelConfig = { port: 26379, globals: defaultGlobals(), myid: null, currentEpoch: 0, masters: [], otherLines: [] };
  const lines = text.split('\n');
  const master = (n: number, line: string, name: string | undefined): MonitoredMasterConfig => {
    const m = config.masters.find((x) => x.name === name);
    if (m === undefined) throw new SentinelConfigError(n, line, 'No such master with specified name.');
    return m;
  };
  const number = (n: number, line: string, word: string | undefined, min: number): number => {
    const v = Number(word);
    if (word === undefined || !/^-?\d+$/.test(word) || v < min) throw new SentinelConfigError(n, line, 'Invalid argument');
    return v;
  };
  // queueSentinelConfig: sentinel lines are read after the others, the
  // options monitoring depends on first, then the monitor lines, then the
  // rest, so that their order in the file does not matter.
  const queued: Array<Array<{ n: number; line: string; words: string[] }>> = [[], [], []];
  lines.forEach((raw, i) => {
    const line = raw.replace(/\r$/, '');
    const n = i + 1;
    const words = configWords(line.trim());
    if (words.length === 0 || words[0]!.startsWith('#')) {
      if (line.trim() !== '# Generated by CONFIG REWRITE' && (i < lines.length - 1 || line !== '')) config.otherLines.push(line);
      return;
    }
    if (words[0]!.toLowerCase() !== 'sentinel') {
      if (words[0]!.toLowerCase() === 'port') config.port = number(n, line, words[1], 0);
      config.otherLines.push(line);
      return;
    }
    const what = (words[1] ?? '').toLowerCase();
    queued[what === 'monitor' ? 1 : PRE_MONITOR.has(what) ? 0 : 2]!.push({ n, line, words });
  });
  for (const { n, line, words } of queued.flat()) {
    const what = (words[1] ?? '').toLowerCase();
    const args = words.slice(2);
    switch (what) {
      case 'monitor': {
        if (args.length !== 4) throw new SentinelConfigError(n, line, 'Wrong number of arguments');
        const quorum = number(n, line, args[3], 1);
        if (config.masters.some((m) => m.name === args[0])) throw new SentinelConfigError(n, line, 'Duplicate master name.');
        config.masters.push(newMasterConfig(args[0]!, args[1]!, number(n, line, args[2], 0), quorum));
        continue;
      }
      case 'down-after-milliseconds':
        master(n, line, args[0]).downAfterMs = number(n, line, args[1], 1);
        continue;
      case 'failover-timeout':
        master(n, line, args[0]).failoverTimeoutMs = number(n, line, args[1], 1);
        continue;
      case 'parallel-syncs':
        master(n, line, args[0]).parallelSyncs = number(n, line, args[1], 0);
        continue;
      case 'config-epoch':
        master(n, line, args[0]).configEpoch = number(n, line, args[1], 0);
        continue;
      case 'leader-epoch':
        master(n, line, args[0]).leaderEpoch = number(n, line, args[1], 0);
        continue;
      case 'known-replica':
      case 'known-slave':
        master(n, line, args[0]).knownReplicas.push({ ip: args[1] ?? '', port: number(n, line, args[2], 0) });
        continue;
      case 'known-sentinel':
        master(n, line, args[0]).knownSentinels.push({ ip: args[1] ?? '', port: number(n, line, args[2], 0), runId: args[3] ?? '' });
        continue;
      case 'notification-script':
      case 'client-reconfig-script': {
        if (args.length !== 2) break;
        const m = master(n, line, args[0]);
        if (!executable(args[1]!)) {
          throw new SentinelConfigError(n, line, what === 'notification-script' ? 'Notification script seems non existing or non executable.' : 'Client reconfiguration script seems non existing or non executable.');
        }
        if (what === 'notification-script') m.notificationScript = args[1]!;
        else m.clientReconfigScript = args[1]!;
        continue;
      }
      case 'auth-pass':
      case 'auth-user':
        if (args.length !== 2) break;
        master(n, line, args[0])[what === 'auth-pass' ? 'authPass' : 'authUser'] = args[1]!;
        continue;
      case 'master-reboot-down-after-period': {
        if (args.length !== 2) break;
        const m = master(n, line, args[0]);
        // atoi: the leading number, 0 when there is none.
        m.rebootDownAfterMs = parseInt(args[1]!, 10) || 0;
        if (m.rebootDownAfterMs < 0) throw new SentinelConfigError(n, line, 'negative time parameter.');
        continue;
      }
      case 'rename-command': {
        if (args.length !== 3) break;
        // sentinelHandleConfiguration: rename-command <name> <command> <renamed-command>, one renaming per command.
        const m = master(n, line, args[0]);
        if (m.renamedCommands.some(([from]) => from.toLowerCase() === args[1]!.toLowerCase())) {
          throw new SentinelConfigError(n, line, 'Same command renamed multiple times with rename-command.');
        }
        m.renamedCommands.push([args[1]!, args[2]!]);
        continue;
      }
      case 'deny-scripts-reconfig': {
        if (args.length !== 1) break;
        const v = yesNo(args[0]);
        if (v === null) throw new SentinelConfigError(n, line, 'Please specify yes or no for the deny-scripts-reconfig options.');
        config.globals.denyScriptsReconfig = v;
        continue;
      }
      case 'myid':
        if (args[0]?.length !== 40) throw new SentinelConfigError(n, line, 'Malformed Sentinel id in myid option.');
        config.myid = args[0];
        continue;
      case 'current-epoch':
        config.currentEpoch = number(n, line, args[0], 0);
        continue;
      case 'announce-ip':
        if (args.length === 1) {
          config.globals.announceIp = args[0]!;
          continue;
        }
        break;
      case 'announce-port':
        if (args.length === 1) {
          // atoi: digits at the start, 0 when there are none.
          config.globals.announcePort = parseInt(args[0]!, 10) || 0;
          continue;
        }
        break;
      case 'sentinel-user':
      case 'sentinel-pass':
        if (args.length === 1) {
          config.globals[what === 'sentinel-user' ? 'sentinelUser' : 'sentinelPass'] = args[0]!;
          continue;
        }
        break;
      case 'resolve-hostnames':
      case 'announce-hostnames': {
        if (args.length !== 1) break;
        const v = yesNo(args[0]);
        if (v === null) throw new SentinelConfigError(n, line, `Please specify yes or no for the ${what} option.`);
        config.globals[what === 'resolve-hostnames' ? 'resolveHostnames' : 'announceHostnames'] = v;
        continue;
      }
      default:
    }
    // Options this emulator does not act on yet (scripts, auth) are kept as written.
    config.otherLines.push(line);
  }
  return config;
}

/** What a rewrite of sentinel.conf reads besides Sentinel's own state. */
export interface SentinelRewriteInputs {
  /** The file as it is now (null: there is none). */
  old: string | null;
  /** A server parameter's value (port, dir, logfile...), which sentinel.conf holds too. */
  value(name: string): string;
}

const DEFAULT_INPUTS: SentinelRewriteInputs = { old: null, value: (name) => lookupParam(name)!.default };

/**
 * The file as redis-sentinel rewrites it (sentinelFlushConfig: rewriteConfig
 * in sentinel mode): the old file's lines kept in place, the server's own
 * options rewritten as CONFIG REWRITE writes them (no save lines), then
 * Sentinel's state in rewriteConfigSentinelOption's order (myid, the
 * options that differ from the defaults, each master's monitor line, its
 * non-default options, config and leader epochs, known replicas and
 * sentinels, then the current epoch and the announce options), each kind
 * of line taking back the old file's lines of that kind first.
 */
export function rewriteSentinelConfig(
  config: SentinelConfig,
  defaults = { downAfterMs: DEFAULT_DOWN_AFTER_MS, failoverTimeoutMs: DEFAULT_FAILOVER_TIMEOUT_MS },
  inputs: SentinelRewriteInputs = DEFAULT_INPUTS,
): string {
  const state = new RewriteState(inputs.old, serverDirective, true);
  rewriteServerOptions(state, { value: (name) => inputs.value(name), primary: null, sentinelMode: true });
  const line = (kind: string, text: string, force = true): void => state.rewriteLine(`sentinel ${kind}`, `sentinel ${kind} ${text}`, force);
  const g = config.globals;
  if (config.myid !== null) line('myid', config.myid);
  line('deny-scripts-reconfig', g.denyScriptsReconfig ? 'yes' : 'no', !g.denyScriptsReconfig);
  line('resolve-hostnames', g.resolveHostnames ? 'yes' : 'no', g.resolveHostnames);
  line('announce-hostnames', g.announceHostnames ? 'yes' : 'no', g.announceHostnames);
  for (const m of config.masters) {
    line('monitor', `${m.name} ${m.ip} ${m.port} ${m.quorum}`);
    if (m.downAfterMs !== defaults.downAfterMs) line('down-after-milliseconds', `${m.name} ${m.downAfterMs}`);
    if (m.failoverTimeoutMs !== defaults.failoverTimeoutMs) line('failover-timeout', `${m.name} ${m.failoverTimeoutMs}`);
    if (m.parallelSyncs !== DEFAULT_PARALLEL_SYNCS) line('parallel-syncs', `${m.name} ${m.parallelSyncs}`);
    if (m.notificationScript !== null) line('notification-script', `${m.name} ${m.notificationScript}`);
    if (m.clientReconfigScript !== null) line('client-reconfig-script', `${m.name} ${m.clientReconfigScript}`);
    if (m.authPass !== null) line('auth-pass', `${m.name} ${m.authPass}`);
    if (m.authUser !== null) line('auth-user', `${m.name} ${m.authUser}`);
    if (m.rebootDownAfterMs !== 0) line('master-reboot-down-after-period', `${m.name} ${m.rebootDownAfterMs}`);
    line('config-epoch', `${m.name} ${m.configEpoch}`);
    line('leader-epoch', `${m.name} ${m.leaderEpoch}`);
    for (const r of m.knownReplicas) line('known-replica', `${m.name} ${r.ip} ${r.port}`);
    for (const s of m.knownSentinels) line('known-sentinel', `${m.name} ${s.ip} ${s.port} ${s.runId}`);
    for (const [from, to] of m.renamedCommands) line('rename-command', `${m.name} ${from} ${to}`);
  }
  line('current-epoch', String(config.currentEpoch));
  const optional = (kind: string, text: string | null): void => (text === null ? state.markProcessed(`sentinel ${kind}`) : line(kind, text));
  optional('announce-ip', g.announceIp !== '' ? repr(g.announceIp) : null);
  optional('announce-port', g.announcePort !== 0 ? String(g.announcePort) : null);
  optional('sentinel-user', g.sentinelUser !== '' ? g.sentinelUser : null);
  optional('sentinel-pass', g.sentinelPass !== '' ? g.sentinelPass : null);
  // Kinds of lines a master may no longer need: their old lines go.
  for (const kind of PER_MASTER_KINDS) state.markProcessed(`sentinel ${kind}`);
  return state.content();
}

/** The per-master lines rewriteConfigSentinelOption marks as handled after its loop. */
const PER_MASTER_KINDS = [
  'monitor', 'down-after-milliseconds', 'failover-timeout', 'parallel-syncs', 'notification-script', 'client-reconfig-script',
  'auth-pass', 'auth-user', 'config-epoch', 'leader-epoch', 'known-replica', 'known-sentinel', 'rename-command',
  'master-reboot-down-after-period',
];

