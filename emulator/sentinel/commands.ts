import { errorReply, MapReply, NULL_ARRAY, OK, PONG, StatusReply, VerbatimReply, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import type { CommandFacts, Handler } from '../server/command-table.js';
import { ALL_HANDLERS } from '../commands/index.js';
import { infoText } from '../server/info.js';
import { isHostname, isIpAddress, yesNo, type SentinelGlobals } from './config.js';
import { selectReplica, startFailover, voteLeader } from './failover.js';
import { periodsReply, setPeriods } from './periods.js';
import { currentMasterAddress, HELLO_CHANNEL, sentinelOf, type Instance, type MonitoredMaster, type Sentinel } from './sentinel.js';

/**
 * The command table of redis-sentinel: the commands flagged SENTINEL in
 * Redis 7.0's src/commands/*.json (PING, INFO, ROLE, CLIENT, COMMAND,
 * HELLO, AUTH, SHUTDOWN, the pub/sub commands) and SENTINEL itself
 * (sentinelCommand in src/sentinel.c). Anything else is an unknown command.
 */

/** SENTINEL's facts as a 7.0 sentinel reports them (src/commands/sentinel.json: admin, loading, stale; arity -2). */
export const SENTINEL_FACTS: readonly CommandFacts[] = [
  {
    name: 'sentinel',
    info: ['sentinel', -2, { set: [{ s: 'admin' }, { s: 'loading' }, { s: 'stale' }] }, 0, 0, 0, { set: [{ s: '@admin' }, { s: '@slow' }, { s: '@dangerous' }] }, { set: [] }, { set: [] }],
    docs: { group: 'sentinel' },
  } as unknown as CommandFacts,
];

const SHARED = new Set(['ping', 'subscribe', 'unsubscribe', 'psubscribe', 'punsubscribe', 'publish', 'client', 'command', 'hello', 'auth', 'shutdown']);

function must(c: Client): Sentinel {
  const s = sentinelOf(c.server);
  if (s === undefined) throw new Error('SENTINEL on a server that is not a sentinel');
  return s;
}

/** addReplySentinelRedisInstance: a map whose numbers are bulk strings, with the fields of the instance's kind. */
function instanceReply(s: Sentinel, ri: Instance): Reply {
  const now = s.nowMs();
  const master = ri.kind === 'master' ? (ri as MonitoredMaster) : null;
  const flags = [
    ri.sdown ? 's_down' : '',
    master?.odown === true ? 'o_down' : '',
    ri.kind,
    s.disconnected(ri) ? 'disconnected' : '',
    ri.masterDown ? 'master_down' : '',
    master !== null && master.failoverState !== 'none' ? 'failover_in_progress' : '',
    ri.promoted ? 'promoted' : '',
    ri.reconf === 'none' ? '' : `reconf_${ri.reconf}`,
    master?.forceFailover === true ? 'force_failover' : '',
  ]
    .filter((f) => f !== '')
    .join(',');
  const f: Array<[string, string | number]> = [
    ['name', ri.name],
    ['ip', ri.ip],
    ['port', ri.port],
    ['runid', ri.runId],
    ['flags', flags],
    ['link-pending-commands', (ri.cc?.pending ?? 0) + (ri.pc?.pending ?? 0)],
    ['link-refcount', 1],
  ];
  if (master !== null && master.failoverState !== 'none') f.push(['failover-state', master.failoverState]);
  f.push(
    ['last-ping-sent', ri.actPingMs !== 0 ? now - ri.actPingMs : 0],
    ['last-ok-ping-reply', now - ri.lastAvailMs],
    ['last-ping-reply', now - ri.lastPongMs],
  );
  if (ri.sdown) f.push(['s-down-time', now - ri.sdownSinceMs]);
  if (master?.odown === true) f.push(['o-down-time', now - master.odownSinceMs]);
  const m = ri.kind === 'master' ? (ri as MonitoredMaster) : ri.master!;
  f.push(['down-after-milliseconds', m.config.downAfterMs]);
  if (ri.kind !== 'sentinel') {
    f.push(['info-refresh', ri.infoRefreshMs !== 0 ? now - ri.infoRefreshMs : 0], ['role-reported', ri.roleReported], ['role-reported-time', now - ri.roleReportedMs]);
  }
  if (ri.kind === 'master') {
    f.push(
      ['config-epoch', m.config.configEpoch],
      ['num-slaves', m.replicas.size],
      ['num-other-sentinels', m.sentinels.size],
      ['quorum', m.config.quorum],
      ['failover-timeout', m.config.failoverTimeoutMs],
      ['parallel-syncs', m.config.parallelSyncs],
    );
    if (m.config.notificationScript !== null) f.push(['notification-script', m.config.notificationScript]);
    if (m.config.clientReconfigScript !== null) f.push(['client-reconfig-script', m.config.clientReconfigScript]);
  }
  if (ri.kind === 'slave') {
    f.push(
      ['master-link-down-time', ri.masterLinkDownMs],
      ['master-link-status', ri.masterLinkUp ? 'ok' : 'err'],
      ['master-host', ri.masterHost ?? '?'],
      ['master-port', ri.masterPort],
      ['slave-priority', ri.priority],
      ['slave-repl-offset', ri.replOffset],
      ['replica-announced', ri.replicaAnnounced],
    );
  }
  if (ri.kind === 'sentinel') {
    f.push(['last-hello-message', now - ri.lastHelloMs], ['voted-leader', ri.leader ?? '?'], ['voted-leader-epoch', ri.leaderEpoch]);
  }
  return new MapReply(f.flatMap(([k, v]) => [k, String(v)]));
}

function arity(sub: string): Reply {
  return errorReply(`wrong number of arguments for 'sentinel|${sub}' command`);
}

function masterOrError(s: Sentinel, name: string): MonitoredMaster | Reply {
  return s.masters.get(name) ?? errorReply('No such master with that name');
}

const SUBCOMMANDS = new Set([
  'ckquorum', 'config', 'debug', 'get-master-addr-by-name', 'failover', 'flushconfig', 'help', 'info-cache', 'is-master-down-by-addr',
  'master', 'masters', 'monitor', 'myid', 'pending-scripts', 'remove', 'replicas', 'reset', 'sentinels', 'set', 'simulate-failure', 'slaves',
]);

/** sentinelCommand (src/sentinel.c). */
function sentinel(c: Client, argv: string[]): Reply {
  const s = must(c);
  const sub = argv[1]!.toLowerCase();
  if (!SUBCOMMANDS.has(sub)) return errorReply(`unknown subcommand '${argv[1]!.slice(0, 128)}'. Try SENTINEL HELP.`);
  const n = argv.length;
  switch (sub) {
    case 'masters':
      if (n !== 2) return arity(sub);
      return [...s.masters.values()].map((m) => instanceReply(s, m));
    case 'master': {
      if (n !== 3) return arity(sub);
      const m = masterOrError(s, argv[2]!);
      return 'config' in (m as object) ? instanceReply(s, m as MonitoredMaster) : (m as Reply);
    }
    case 'replicas':
    case 'slaves':
    case 'sentinels': {
      if (n !== 3) return arity(sub);
      const m = masterOrError(s, argv[2]!);
      if (!('config' in (m as object))) return m as Reply;
      const master = m as MonitoredMaster;
      // addReplyDictOfRedisInstances: a replica whose INFO says replica_announced:0 is left out.
      return [...(sub === 'sentinels' ? master.sentinels : master.replicas).values()].filter((ri) => ri.kind !== 'slave' || ri.replicaAnnounced !== 0).map((ri) => instanceReply(s, ri));
    }
    case 'myid':
      if (n !== 2) return arity(sub);
      return s.myid;
    case 'get-master-addr-by-name': {
      if (n !== 3) return arity(sub);
      const m = s.masters.get(argv[2]!);
      if (m === undefined) return NULL_ARRAY;
      const addr = currentMasterAddress(m);
      return [addr.ip, String(addr.port)];
    }
    case 'is-master-down-by-addr': {
      if (n !== 6) return arity(sub);
      if (!/^-?\d+$/.test(argv[3]!) || !/^-?\d+$/.test(argv[4]!)) return errorReply('value is not an integer or out of range');
      const port = Number(argv[3]);
      const m = [...s.masters.values()].find((x) => x.config.ip === argv[2] && x.config.port === port);
      // The vote is asked for only with a run id; "*" just asks for the down state.
      const vote = m !== undefined && argv[5] !== '*' ? voteLeader(s, m, Number(argv[4]), argv[5]!) : null;
      // In TILT mode a sentinel never says a master is down.
      return [!s.tilt && m?.sdown === true ? 1 : 0, vote?.leader ?? '*', vote?.epoch ?? 0];
    }
    case 'reset': {
      if (n !== 3) return arity(sub);
      const re = globToRegExp(argv[2]!);
      let count = 0;
      for (const m of s.masters.values()) {
        if (!re.test(m.config.name)) continue;
        s.reset(m);
        count++;
      }
      if (count > 0) s.flushConfig();
      return count;
    }
    case 'monitor': {
      if (n !== 6) return arity(sub);
      if (!/^-?\d+$/.test(argv[5]!)) return errorReply('Invalid quorum');
      if (!/^-?\d+$/.test(argv[4]!)) return errorReply('Invalid port');
      const quorum = Number(argv[5]);
      const port = Number(argv[4]);
      if (quorum <= 0) return errorReply('Quorum must be 1 or greater.');
      // anetResolve: with resolve-hostnames a name is looked up, else only an address is taken.
      if (!(s.config.globals.resolveHostnames ? isHostname(argv[3]!) : isIpAddress(argv[3]!))) return errorReply('Invalid IP address or hostname specified');
      if (port <= 0 || port > 65535) return errorReply('Invalid port number');
      const m = s.monitor(argv[2]!, argv[3]!, port, quorum);
      if (typeof m === 'string') return errorReply(`${m}`);
      const flushed = flushReply(s);
      s.event('warning', '+monitor', m, `quorum ${quorum}`);
      return flushed;
    }
    case 'flushconfig':
      if (n !== 2) return arity(sub);
      return flushReply(s);
    case 'remove': {
      if (n !== 3) return arity(sub);
      const m = masterOrError(s, argv[2]!);
      if (!('config' in (m as object))) return m as Reply;
      s.event('warning', '-monitor', m as MonitoredMaster, '');
      s.remove(argv[2]!);
      return flushReply(s);
    }
    case 'ckquorum': {
      if (n !== 3) return arity(sub);
      const m = masterOrError(s, argv[2]!);
      if (!('config' in (m as object))) return m as Reply;
      return ckquorum(m as MonitoredMaster);
    }
    case 'set':
      return setOptions(s, argv);
    case 'config':
      if (n < 3) return arity(sub);
      return configCommand(s, argv);
    case 'failover': {
      if (n !== 3) return arity(sub);
      const m = masterOrError(s, argv[2]!);
      if (!('config' in (m as object))) return m as Reply;
      const master = m as MonitoredMaster;
      if (master.failoverState !== 'none') return errorReply('-INPROG Failover already in progress');
      if (selectReplica(s, master) === null) return errorReply('-NOGOODSLAVE No suitable replica to promote');
      s.p.log(`Executing user requested FAILOVER of '${master.config.name}'`, 'warning');
      startFailover(s, master);
      master.forceFailover = true;
      return OK;
    }
    case 'pending-scripts':
      if (n !== 2) return arity(sub);
      return s.scripts.pendingReply();
    case 'info-cache':
      return infoCache(s, argv.slice(2));
    case 'simulate-failure': {
      // The command table gives sentinel|simulate-failure an arity of -3.
      if (n < 3) return arity(sub);
      const flags = { afterElection: false, afterPromotion: false };
      s.simulateFailure = flags;
      for (const a of argv.slice(2)) {
        const w = a.toLowerCase();
        if (w === 'crash-after-election') {
          flags.afterElection = true;
          s.p.log('Failure simulation: this Sentinel will crash after being successfully elected as failover leader', 'warning');
        } else if (w === 'crash-after-promotion') {
          flags.afterPromotion = true;
          s.p.log('Failure simulation: this Sentinel will crash after promoting the selected replica to master', 'warning');
        } else if (w === 'help') {
          return ['crash-after-election', 'crash-after-promotion'];
        } else {
          return errorReply('Unknown failure simulation specified');
        }
      }
      return OK;
    }
    case 'debug':
      return n === 2 ? periodsReply(s.periods) : setPeriods(s.periods, argv);
    case 'help':
      return errorReply(`wrong number of arguments for 'sentinel|help' command`);
    default:
      return errorReply(`${argv[1]!.toUpperCase()} is not supported by this sentinel yet`);
  }
}

/** sentinelFlushConfigAndReply: +OK, or the error Redis gives when the file cannot be written. */
function flushReply(s: Sentinel): Reply {
  return s.flushConfig() ? OK : errorReply('Failed to save config file. Check server logs.');
}

/**
 * sentinelIsQuorumReachable: this sentinel plus the other sentinels it
 * knows must reach the quorum, and a majority of all of them must be
 * reachable to authorise a failover.
 */
function ckquorum(m: MonitoredMaster): Reply {
  const voters = m.sentinels.size + 1;
  let usable = 1;
  for (const ri of m.sentinels.values()) if (!ri.sdown) usable++;
  const majority = Math.floor(voters / 2) + 1;
  const noQuorum = usable < m.config.quorum;
  const noAuth = usable < majority;
  if (!noQuorum && !noAuth) return new StatusReply(`OK ${usable} usable Sentinels. Quorum and failover authorization can be reached`);
  let e = `-NOQUORUM ${usable} usable Sentinels. `;
  if (noQuorum) e += 'Not enough available Sentinels to reach the specified quorum for this master';
  if (noAuth) e += `${noQuorum ? '. ' : ''}Not enough available Sentinels to reach the majority and authorize a failover`;
  return errorReply(e);
}

/**
 * SENTINEL SET <master> <option> <value> ... (sentinelSetCommand): each
 * option is applied and announced (+set) as it is read; at the first bad
 * one the error is the reply, and the changes before it are still saved.
 */
function setOptions(s: Sentinel, argv: string[]): Reply {
  if (argv.length < 5) return arity('set');
  const m = masterOrError(s, argv[2]!);
  if (!('config' in (m as object))) return m as Reply;
  const master = m as MonitoredMaster;
  let changes = 0;
  const fail = (reply: Reply): Reply => {
    if (changes > 0) s.flushConfig();
    return reply;
  };
  for (let j = 3; j < argv.length; j++) {
    const option = argv[j]!;
    const lower = option.toLowerCase();
    const more = argv.length - 1 - j;
    const first = j;
    if ((lower === 'down-after-milliseconds' || lower === 'failover-timeout' || lower === 'parallel-syncs' || lower === 'quorum') && more > 0) {
      const value = argv[++j]!;
      // getLongLongFromObject: the whole word is a number; it must be above zero.
      if (!/^-?\d+$/.test(value) || Number(value) <= 0) return fail(errorReply(`Invalid argument '${value}' for SENTINEL SET '${option}'`));
      const v = Number(value);
      if (lower === 'down-after-milliseconds') master.config.downAfterMs = v;
      else if (lower === 'failover-timeout') master.config.failoverTimeoutMs = v;
      else if (lower === 'parallel-syncs') master.config.parallelSyncs = v;
      else master.config.quorum = v;
    } else if ((lower === 'notification-script' || lower === 'client-reconfig-script') && more > 0) {
      const value = argv[++j]!;
      if (s.config.globals.denyScriptsReconfig) {
        return fail(errorReply('Reconfiguration of scripts path is denied for security reasons. Check the deny-scripts-reconfig configuration directive in your Sentinel configuration'));
      }
      if (value !== '' && !s.executable(value)) {
        return fail(errorReply(lower === 'notification-script' ? 'Notification script seems non existing or non executable' : 'Client reconfiguration script seems non existing or non executable'));
      }
      // An empty path removes the script.
      if (lower === 'notification-script') master.config.notificationScript = value === '' ? null : value;
      else master.config.clientReconfigScript = value === '' ? null : value;
    } else if (lower === 'master-reboot-down-after-period' && more > 0) {
      const value = argv[++j]!;
      // getLongLongFromObject: the whole word is a number, here zero or more.
      if (!/^-?\d+$/.test(value) || Number(value) < 0) return fail(errorReply(`Invalid argument '${value}' for SENTINEL SET '${option}'`));
      master.config.rebootDownAfterMs = Number(value);
    } else if (lower === 'rename-command' && more > 1) {
      const from = argv[++j]!;
      const to = argv[++j]!;
      if (from === '' || to === '') return fail(errorReply(`Invalid argument '${to === '' ? to : from}' for SENTINEL SET '${option}'`));
      // A new renaming replaces the old one; a command renamed to its own name (any case) is no renaming at all.
      const table = master.config.renamedCommands;
      const at = table.findIndex(([f]) => f.toLowerCase() === from.toLowerCase());
      if (at >= 0) table.splice(at, 1);
      if (from.toLowerCase() !== to.toLowerCase()) table.push([from, to]);
    } else if ((lower === 'auth-pass' || lower === 'auth-user') && more > 0) {
      const value = argv[++j]!;
      master.config[lower === 'auth-pass' ? 'authPass' : 'authUser'] = value === '' ? null : value;
      // dropInstanceConnections: the links to the master and its replicas open again, authenticating the new way.
      s.dropConnections(master);
    } else {
      return fail(errorReply(`Unknown option or number of arguments for SENTINEL SET '${option}'`));
    }
    changes++;
    // The password itself stays out of the log and the event channel.
    // Two words after the option (rename-command) are both shown.
    s.event('warning', '+set', master, `${argv[first]} ${lower === 'auth-pass' ? '******' : argv.slice(first + 1, j + 1).join(' ')}`);
  }
  return flushReply(s);
}

/** The options SENTINEL CONFIG GET lists, in sentinelConfigGetCommand's order, with their values. */
function globalOptions(g: SentinelGlobals): Array<[string, string]> {
  return [
    ['resolve-hostnames', g.resolveHostnames ? 'yes' : 'no'],
    ['announce-hostnames', g.announceHostnames ? 'yes' : 'no'],
    ['announce-ip', g.announceIp],
    ['announce-port', String(g.announcePort)],
    ['sentinel-user', g.sentinelUser],
    ['sentinel-pass', g.sentinelPass],
  ];
}

/** SENTINEL CONFIG GET <pattern> | SET <option> <value> (sentinelConfigGetCommand, sentinelConfigSetCommand). */
function configCommand(s: Sentinel, argv: string[]): Reply {
  const op = argv[2]!.toLowerCase();
  const g = s.config.globals;
  if (op === 'get' && argv.length === 4) {
    // stringmatch with nocase: the pattern is a glob over the option names.
    const re = globToRegExp(argv[3]!, 'i');
    return new MapReply(globalOptions(g).filter(([name]) => re.test(name)).flat());
  }
  if (op !== 'set' || argv.length !== 5) return errorReply('Only SENTINEL CONFIG GET <option> / SET <option> <value> are supported.');
  const option = argv[3]!;
  const value = argv[4]!;
  const badValue = (): Reply => errorReply(`Invalid value '${value}' to SENTINEL CONFIG SET '${option}'`);
  switch (option.toLowerCase()) {
    case 'resolve-hostnames':
    case 'announce-hostnames': {
      const v = yesNo(value);
      if (v === null) return badValue();
      if (option.toLowerCase() === 'resolve-hostnames') g.resolveHostnames = v;
      else g.announceHostnames = v;
      break;
    }
    case 'announce-ip':
      g.announceIp = value;
      break;
    case 'announce-port': {
      // getLongLongFromObject: the whole value must be a number.
      if (!/^-?\d+$/.test(value) || Number(value) < 0 || Number(value) > 65535) return badValue();
      g.announcePort = Number(value);
      break;
    }
    case 'sentinel-user':
      g.sentinelUser = value;
      break;
    case 'sentinel-pass':
      g.sentinelPass = value;
      break;
    default:
      return errorReply(`Invalid argument '${option}' to SENTINEL CONFIG SET`);
  }
  return flushReply(s);
}

/**
 * SENTINEL INFO-CACHE [<master> ...]: for each master asked (every master
 * when none is; unknown names skipped, each once), its name, then
 * [ms since its INFO arrived, the INFO text] for it and for each replica.
 */
function infoCache(s: Sentinel, names: string[]): Reply {
  const masters = names.length === 0 ? [...s.masters.values()] : [...new Set(names)].flatMap((n) => s.masters.get(n) ?? []);
  const now = s.nowMs();
  const entry = (age: number, info: string): Reply => [age, info === '' ? null : info];
  const out: Reply[] = [];
  for (const m of masters) {
    out.push(m.config.name);
    // sentinel.c takes the master's info_refresh to tell whether a replica's age is reported.
    out.push([entry(m.infoRefreshMs !== 0 ? now - m.infoRefreshMs : 0, m.info), ...[...m.replicas.values()].map((r) => entry(m.infoRefreshMs !== 0 ? now - r.infoRefreshMs : 0, r.info))]);
  }
  return out;
}

function globToRegExp(pattern: string, flags = ''): RegExp {
  let re = '';
  for (const ch of pattern) re += ch === '*' ? '.*' : ch === '?' ? '.' : ch.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${re}$`, `s${flags}`);
}

/** sentinelInfoCommand: the server's sections it keeps, then # Sentinel. */
function info(c: Client, argv: string[]): Reply {
  const s = must(c);
  const asked = argv.slice(1).map((a) => a.toLowerCase());
  const all = asked.length === 0 || asked.some((a) => a === 'all' || a === 'everything' || a === 'default');
  const base = all ? ['server', 'clients', 'cpu', 'stats'] : asked.filter((a) => ['server', 'clients', 'cpu', 'stats'].includes(a));
  let text = base.length > 0 ? infoText(c.server, base) : '';
  if (all || asked.includes('sentinel')) {
    if (text !== '') text += '\r\n';
    text +=
      '# Sentinel\r\n' +
      `sentinel_masters:${s.masters.size}\r\n` +
      `sentinel_tilt:${s.tilt ? 1 : 0}\r\n` +
      `sentinel_tilt_since_seconds:${s.tilt ? Math.floor((s.nowMs() - s.tiltStartMs) / 1000) : -1}\r\n` +
      `sentinel_running_scripts:${s.scripts.running}\r\n` +
      `sentinel_scripts_queue_length:${s.scripts.length}\r\n` +
      `sentinel_simulate_failure_flags:${(s.simulateFailure.afterElection ? 1 : 0) | (s.simulateFailure.afterPromotion ? 2 : 0)}\r\n`;
    let id = 0;
    for (const m of s.masters.values()) {
      const status = m.odown ? 'odown' : m.sdown ? 'sdown' : 'ok';
      text += `master${id++}:name=${m.config.name},status=${status},address=${m.config.ip}:${m.config.port},slaves=${m.replicas.size},sentinels=${m.sentinels.size + 1}\r\n`;
    }
  }
  return new VerbatimReply(text);
}

/** ROLE on a sentinel (roleCommand): "sentinel" and the names of the masters it monitors. */
function role(c: Client): Reply {
  return ['sentinel', [...must(c).masters.keys()]];
}

/** sentinelPublishCommand: a sentinel takes only hello messages, and reads them itself. */
function publish(c: Client, argv: string[]): Reply {
  if (argv[1] !== HELLO_CHANNEL) return errorReply('Only HELLO messages are accepted by Sentinel instances.');
  must(c).processHello(argv[2]!);
  return 1;
}

function ping(): Reply {
  return PONG;
}

/** The handlers of a sentinel-mode server. */
export const SENTINEL_HANDLERS: Readonly<Record<string, Handler>> = {
  ...Object.fromEntries(Object.entries(ALL_HANDLERS).filter(([name]) => SHARED.has(name.split('|')[0]!))),
  ping: ALL_HANDLERS['ping'] ?? ping,
  info,
  role,
  publish,
  sentinel,
};
