import type { ProcessModule, ProcessServices } from '../process/services.js';
import type { RedisServer } from '../server/server.js';
import { GLOBAL } from '../server/pubsub.js';
import type { ServerLogLevel } from '../server/log-line.js';
import { bytesFromArray } from '../resp/bytes.js';
import { ErrorReply, StatusReply, VerbatimReply, type Reply } from '../resp/reply.js';
import { parseSentinelConfig, rewriteSentinelConfig, sentinelConfigText, SentinelConfigError, newMasterConfig, type MonitoredMasterConfig, type SentinelConfig } from './config.js';
import { ReplyLink } from './link.js';
import { SentinelConfigFile } from './config-flush.js';
import { defaultPeriods, type SentinelPeriods } from './periods.js';
import { ScriptQueue } from './scripts.js';
import { actOnRole, askMasterStateToOtherSentinels, checkObjectivelyDown, failoverStateMachine, startFailoverIfNeeded, switchToPromoted } from './failover.js';

/** The Sentinel of each sentinel-mode server, for its command handlers. */
const SENTINELS = new WeakMap<RedisServer, Sentinel>();

export function sentinelOf(server: RedisServer): Sentinel | undefined {
  return SENTINELS.get(server);
}

/** SRI_MASTER, SRI_SLAVE, SRI_SENTINEL of src/sentinel.c. */
export type InstanceKind = 'master' | 'slave' | 'sentinel';

/**
 * What a sentinel knows of one instance (struct sentinelRedisInstance): a
 * master it monitors, a replica of it, or another sentinel watching it.
 * Times are the sentinel's clock in ms.
 */
export interface Instance {
  readonly kind: InstanceKind;
  /** The master's configured name; "ip:port" for a replica; the run id for a sentinel. */
  name: string;
  ip: string;
  port: number;
  runId: string;
  /** The master a replica or a sentinel belongs to; null for a master. */
  readonly master: MonitoredMaster | null;
  sdown: boolean;
  sdownSinceMs: number;
  /** The command link (instanceLink.cc); null while disconnected. */
  cc: ReplyLink | null;
  /** The pub/sub link (instanceLink.pc) of masters and replicas. */
  pc: ReplyLink | null;
  /** act_ping_time: when the PING still unanswered was sent, 0 when none is. */
  actPingMs: number;
  /** last_ping_time: when the last PING was sent. */
  lastPingMs: number;
  /** last_avail_time: the last valid reply to PING (+PONG, -LOADING, -MASTERDOWN). */
  lastAvailMs: number;
  /** last_pong_time: the last reply of any kind to PING. */
  lastPongMs: number;
  /** last_pub_time: the last hello this sentinel published to the instance. */
  lastPubMs: number;
  /** info_refresh: when the last INFO reply arrived, 0 before the first. */
  infoRefreshMs: number;
  /** The full text of the last INFO reply (ri->info). */
  info: string;
  roleReported: 'master' | 'slave';
  roleReportedMs: number;
  /** SRI_MASTER_REBOOT and master_reboot_since_time: when a master with master-reboot-down-after-period was seen restarted, until its next PONG; null when not. */
  rebootSinceMs: number | null;
  /** Replicas: what their INFO says of their link to their master. */
  masterLinkDownMs: number;
  masterHost: string | null;
  masterPort: number;
  masterLinkUp: boolean;
  priority: number;
  replOffset: number;
  replicaAnnounced: number;
  /** Sentinels: when their last hello came, and the leader they voted for. */
  lastHelloMs: number;
  leader: string | null;
  leaderEpoch: number;
  /** Sentinels: SRI_MASTER_DOWN, their last answer to IS-MASTER-DOWN-BY-ADDR. */
  masterDown: boolean;
  lastMasterDownReplyMs: number;
  /** Replicas: SRI_PROMOTED and the SRI_RECONF_* steps of a failover. */
  promoted: boolean;
  reconf: 'none' | 'sent' | 'inprog' | 'done';
  reconfSentMs: number;
  /** slave_conf_change_time: when its master address or role last changed. */
  slaveConfChangeMs: number;
  /** last_reconn_time: the last attempt to open the links that were missing, ms. */
  lastReconnMs: number;
}

/** sentinelFailoverStateStr's names of the failover states. */
export type FailoverState = 'none' | 'wait_start' | 'select_slave' | 'send_slaveof_noone' | 'wait_promotion' | 'reconf_slaves' | 'update_config';

/** A master this sentinel monitors, with its replicas and the other sentinels that watch it. */
export interface MonitoredMaster extends Instance {
  readonly config: MonitoredMasterConfig;
  odown: boolean;
  /** When the instance was created (the times SENTINEL MASTER reports count from it until a reply arrives), ms. */
  createdMs: number;
  /** By name ("ip:port"). */
  readonly replicas: Map<string, Instance>;
  /** By run id. */
  readonly sentinels: Map<string, Instance>;
  odownSinceMs: number;
  failoverState: FailoverState;
  failoverEpoch: number;
  failoverStartMs: number;
  failoverStateChangeMs: number;
  failoverDelayLogged: number;
  promotedReplica: Instance | null;
  /** SRI_FORCE_FAILOVER: SENTINEL FAILOVER started it, so no election is needed. */
  forceFailover: boolean;
}

/** SENTINEL_MAX_PENDING_COMMANDS of src/sentinel.c. */
const MAX_PENDING_COMMANDS = 100;
/** SENTINEL_HELLO_CHANNEL. */
export const HELLO_CHANNEL = '__sentinel__:hello';
/** CONFIG_DEFAULT_HZ of src/server.h. */
const CONFIG_DEFAULT_HZ = 10;
/** SENTINEL_DEFAULT_SLAVE_PRIORITY. */
const DEFAULT_REPLICA_PRIORITY = 100;

/**
 * The sentinel state of a redis-sentinel process (struct sentinelState in
 * src/sentinel.c): its id, the current epoch and the masters it monitors,
 * read from and rewritten into its config file. Events go to the log and
 * to the pub/sub channel named after them, as sentinelEvent does.
 */
export class Sentinel implements ProcessModule {
  readonly config: SentinelConfig;
  readonly masters = new Map<string, MonitoredMaster>();
  /** TILT mode (sentinel.tilt): the timer ran too late or time went back, so for a while nothing is judged. */
  tilt = false;
  tiltStartMs = 0;
  /** The periods and timeouts SENTINEL DEBUG may change. */
  readonly periods: SentinelPeriods = defaultPeriods();
  /** The notification and client-reconfig scripts waiting or running. */
  readonly scripts = new ScriptQueue(this);
  /** sentinel.previous_time: when the timer last ran. */
  private previousTimeMs: number;
  /** The hz the configuration set, before the timer's random changes. */
  private readonly configuredHz: string;
  /** sentinel.conf, rewritten through a synced temporary file. */
  private readonly configFile: SentinelConfigFile;
  /** SENTINEL SIMULATE-FAILURE: crash after being elected leader, after promoting the chosen replica. */
  simulateFailure = { afterElection: false, afterPromotion: false };

  constructor(
    readonly p: ProcessServices,
    readonly configPath: string,
    extraConfig?: string,
  ) {
    this.config = parseSentinelConfig(sentinelConfigText(bytesFromArray(p.host.disk.readFile(configPath)), extraConfig));
    this.configuredHz = p.server.config.get('hz');
    this.configFile = new SentinelConfigFile(p, configPath);
    this.previousTimeMs = this.nowMs();
    for (const m of this.config.masters) {
      const master = this.masterInstance(m);
      // known-replica and known-sentinel lines create the instances at once (sentinelHandleConfiguration).
      for (const r of m.knownReplicas) this.addReplica(master, r.ip, r.port);
      for (const s of m.knownSentinels) this.addSentinel(master, s.ip, s.port, s.runId);
      this.masters.set(m.name, master);
    }
    SENTINELS.set(p.server, this);
  }

  private newInstance<K extends InstanceKind>(kind: K, name: string, ip: string, port: number, master: MonitoredMaster | null): Instance {
    const now = this.nowMs();
    return {
      kind,
      name,
      ip,
      port,
      runId: '',
      master,
      sdown: false,
      sdownSinceMs: 0,
      cc: null,
      pc: null,
      actPingMs: now,
      lastPingMs: 0,
      lastAvailMs: now,
      lastPongMs: now,
      lastPubMs: 0,
      infoRefreshMs: 0,
      info: '',
      roleReported: kind === 'slave' ? 'slave' : 'master',
      roleReportedMs: now,
      rebootSinceMs: null,
      masterLinkDownMs: 0,
      masterHost: null,
      masterPort: 0,
      masterLinkUp: false,
      priority: DEFAULT_REPLICA_PRIORITY,
      replOffset: 0,
      replicaAnnounced: 1,
      lastHelloMs: now,
      leader: null,
      leaderEpoch: 0,
      masterDown: false,
      lastMasterDownReplyMs: 0,
      promoted: false,
      reconf: 'none',
      reconfSentMs: 0,
      slaveConfChangeMs: now,
      lastReconnMs: 0,
    };
  }

  private masterInstance(config: MonitoredMasterConfig): MonitoredMaster {
    const base = this.newInstance('master', config.name, config.ip, config.port, null);
    base.leaderEpoch = config.leaderEpoch;
    return Object.assign(base, {
      config,
      odown: false,
      createdMs: this.nowMs(),
      replicas: new Map<string, Instance>(),
      sentinels: new Map<string, Instance>(),
      odownSinceMs: 0,
      failoverState: 'none' as FailoverState,
      failoverEpoch: 0,
      failoverStartMs: 0,
      failoverStateChangeMs: 0,
      failoverDelayLogged: 0,
      promotedReplica: null,
      forceFailover: false,
    });
  }

  private addReplica(m: MonitoredMaster, ip: string, port: number): Instance | null {
    const name = `${ip}:${port}`;
    if (m.replicas.has(name)) return null;
    const r = this.newInstance('slave', name, ip, port, m);
    m.replicas.set(name, r);
    return r;
  }

  private addSentinel(m: MonitoredMaster, ip: string, port: number, runId: string): Instance | null {
    if (m.sentinels.has(runId)) return null;
    const s = this.newInstance('sentinel', runId, ip, port, m);
    s.runId = runId;
    m.sentinels.set(runId, s);
    return s;
  }

  /**
   * sentinelCheckTiltCondition: a timer that ran more than 2 s after the
   * previous one (the process was stopped, the machine overloaded) or a
   * clock that went back means what was measured meanwhile cannot be
   * trusted: TILT for 30 s.
   */
  private checkTiltCondition(): void {
    const now = this.nowMs();
    const delta = now - this.previousTimeMs;
    if (delta < 0 || delta > this.periods.tiltTriggerMs) {
      this.tilt = true;
      this.tiltStartMs = now;
      this.event('warning', '+tilt', null, '#tilt mode entered');
    }
    this.previousTimeMs = now;
  }

  /** sentinelSimFailureCrash: the failure SENTINEL SIMULATE-FAILURE asked for. */
  simulatedCrash(): void {
    this.p.log('Sentinel CRASH because of SENTINEL simulate-failure', 'warning');
    this.p.exit(99);
  }

  nowMs(): number {
    return Math.floor(this.p.nowUs() / 1000);
  }

  get myid(): string {
    return this.config.myid ?? '';
  }

  /**
   * sentinelIsRunning: a sentinel without an id picks one and saves it at
   * once, logs it, and announces every master it monitors.
   */
  prepare(): string | null {
    if (this.config.myid === null) {
      let id = '';
      while (id.length < 40) id += this.p.kernel.random.nextU32().toString(16).padStart(8, '0');
      this.config.myid = id.slice(0, 40);
      this.flushConfig();
    }
    this.p.log(`Sentinel ID is ${this.myid}`, 'warning');
    for (const m of this.masters.values()) this.event('warning', '+monitor', m, `quorum ${m.config.quorum}`);
    return null;
  }

  /**
   * sentinelTimer, run from serverCron: for every master, its replicas and
   * the other sentinels (sentinelHandleDictOfRedisInstances), keep the
   * links up, send the periodic commands and judge subjective downs.
   */
  cron(): void {
    this.checkTiltCondition();
    for (const m of [...this.masters.values()]) {
      this.handleInstance(m);
      for (const r of [...m.replicas.values()]) this.handleInstance(r);
      for (const s of [...m.sentinels.values()]) this.handleInstance(s);
      if (m.failoverState === 'update_config') switchToPromoted(this, m);
    }
    this.scripts.tick();
    // A random hz each time keeps sentinels from running their timers in lockstep and splitting every vote.
    this.p.server.config.set('hz', String(CONFIG_DEFAULT_HZ + (this.p.kernel.random.nextU32() % CONFIG_DEFAULT_HZ)));
  }

  /** sentinelHandleRedisInstance: monitoring for all, then for masters the odown check and the failover. */
  private handleInstance(ri: Instance): void {
    this.reconnect(ri);
    this.sendPeriodicCommands(ri);
    // The acting half waits while in TILT: information is still gathered, nothing is decided.
    if (this.tilt) {
      if (this.nowMs() - this.tiltStartMs < this.periods.tiltPeriodMs) return;
      this.tilt = false;
      this.event('warning', '-tilt', null, '#tilt mode exited');
    }
    this.checkSubjectivelyDown(ri);
    if (ri.kind === 'master') {
      const m = ri as MonitoredMaster;
      checkObjectivelyDown(this, m);
      if (startFailoverIfNeeded(this, m)) askMasterStateToOtherSentinels(this, m, true);
      failoverStateMachine(this, m);
      askMasterStateToOtherSentinels(this, m, false);
    }
  }

  /** Whether both links are up (only the command link for a sentinel): link->disconnected. */
  disconnected(ri: Instance): boolean {
    return ri.cc === null || (ri.kind !== 'sentinel' && ri.pc === null);
  }

  /** sentinelSetClientName: "sentinel-<first 8 of the id>-<cmd|pubsub>". */
  private clientName(type: string): string {
    return `sentinel-${this.myid.slice(0, 8)}-${type}`;
  }

  /**
   * sentinelInstanceMapCommand: a command as the instance knows it, from
   * the rename-command table of its master (every replica and sentinel of
   * a master shares the master's table), matched without regard to case.
   */
  private mapCommand(ri: Instance, name: string): string {
    const table = (ri.master ?? (ri as MonitoredMaster)).config.renamedCommands;
    if (table.length === 0) return name;
    const lower = name.toLowerCase();
    for (const [from, to] of table) if (from.toLowerCase() === lower) return to;
    return name;
  }

  /** sentinelReconnectInstance: the command link (CLIENT SETNAME, then a PING at once) and, but for sentinels, the pub/sub link subscribed to the hello channel. */
  reconnect(ri: Instance): void {
    if (!this.disconnected(ri)) return;
    // One attempt per ping period, so that a host that does not answer is not dialled at every timer tick.
    const now = this.nowMs();
    if (now - ri.lastReconnMs < this.periods.pingMs) return;
    ri.lastReconnMs = now;
    if (ri.cc === null) {
      const cc: ReplyLink = new ReplyLink(
        this.p,
        ri.ip,
        ri.port,
        this.nowMs(),
        () => {
          if (ri.cc === cc) ri.cc = null;
        },
        null,
        (name) => this.mapCommand(ri, name),
      );
      if (cc.alive) {
        ri.cc = cc;
        this.sendAuthIfNeeded(ri, cc);
        cc.send(['CLIENT', 'SETNAME', this.clientName('cmd')]);
        this.sendPing(ri);
      }
    }
    if (ri.kind !== 'sentinel' && ri.pc === null) {
      const pc: ReplyLink = new ReplyLink(
        this.p,
        ri.ip,
        ri.port,
        this.nowMs(),
        () => {
          if (ri.pc === pc) ri.pc = null;
        },
        (channel, payload) => {
          // sentinelReceiveHelloMessages: any message is activity; our own hellos are then skipped.
          pc.lastActivityMs = this.nowMs();
          if (channel === HELLO_CHANNEL && !payload.includes(this.myid)) this.processHello(payload);
        },
        (name) => this.mapCommand(ri, name),
      );
      if (pc.alive) {
        ri.pc = pc;
        this.sendAuthIfNeeded(ri, pc);
        pc.send(['CLIENT', 'SETNAME', this.clientName('pubsub')]);
        pc.send(['SUBSCRIBE', HELLO_CHANNEL], () => {
          pc.lastActivityMs = this.nowMs();
        });
      }
    }
  }

  /**
   * sentinelSendPeriodicCommands: INFO to masters and replicas every 10 s
   * (every second to the replicas of a master that is objectively down or
   * that report their link down), PING when the last reply is older than
   * the ping period, a hello every 2 s.
   */
  private sendPeriodicCommands(ri: Instance): void {
    if (this.disconnected(ri) || ri.cc === null) return;
    if (ri.cc.pending >= MAX_PENDING_COMMANDS) return;
    const now = this.nowMs();
    const downAfter = this.downAfterMs(ri);
    const fast = ri.kind === 'slave' && (ri.master!.odown || ri.master!.failoverState !== 'none' || ri.masterLinkDownMs !== 0);
    const infoPeriod = fast ? 1000 : this.periods.infoMs;
    const pingPeriod = Math.min(downAfter, this.periods.pingMs);
    if (ri.kind !== 'sentinel' && (ri.infoRefreshMs === 0 || now - ri.infoRefreshMs > infoPeriod)) {
      ri.cc.send(['INFO'], (r) => {
        const text = replyText(r);
        if (text !== null) this.refreshInfo(ri, text);
      });
    }
    if (now - ri.lastPongMs > pingPeriod && now - ri.lastPingMs > pingPeriod / 2) this.sendPing(ri);
    if (now - ri.lastPubMs > this.periods.publishMs) this.sendHello(ri);
  }

  private downAfterMs(ri: Instance): number {
    return (ri.master ?? (ri as MonitoredMaster)).config.downAfterMs;
  }

  /** sentinelSendPing and sentinelPingReplyCallback. */
  private sendPing(ri: Instance): void {
    const now = this.nowMs();
    const sent = ri.cc?.send(['PING'], (r) => {
      if (r instanceof StatusReply || r instanceof ErrorReply) {
        const text = r instanceof StatusReply ? r.text : r.message;
        if (text === 'PONG' || text.startsWith('LOADING') || text.startsWith('MASTERDOWN')) {
          ri.lastAvailMs = this.nowMs();
          ri.actPingMs = 0;
          if (text.startsWith('PONG')) ri.rebootSinceMs = null;
        }
      }
      ri.lastPongMs = this.nowMs();
    });
    if (sent !== true) return;
    ri.lastPingMs = now;
    if (ri.actPingMs === 0) ri.actPingMs = now;
  }

  /** The address this sentinel announces: its host's (sentinel-announce-ip is not kept). */

  /**
   * sentinelSendHello: PUBLISH on the hello channel of the instance
   * "<ip>,<port>,<myid>,<current epoch>,<master name>,<master ip>,<master port>,<master config epoch>".
   */
  sendHello(ri: Instance): void {
    // The address announced is announce-ip, or the one the command link
    // leaves from (anetFdToString of its socket): until the system tells
    // it, no hello. The port is announce-port, or the one listened on.
    const g = this.config.globals;
    const ip = g.announceIp !== '' ? g.announceIp : (ri.cc?.localIp ?? null);
    if (ri.cc === null || ip === null) return;
    const m = ri.master ?? (ri as MonitoredMaster);
    const addr = currentMasterAddress(m);
    const payload = `${ip},${g.announcePort !== 0 ? g.announcePort : this.config.port},${this.myid},${this.config.currentEpoch},${m.config.name},${addr.ip},${addr.port},${m.config.configEpoch}`;
    ri.cc.send(['PUBLISH', HELLO_CHANNEL, payload], (r) => {
      // sentinelPublishReplyCallback: only a reply that is not an error counts as published.
      if (!(r instanceof ErrorReply)) ri.lastPubMs = this.nowMs();
    });
  }

  /**
   * sentinelCheckSubjectivelyDown: down when no valid reply to PING came
   * for down-after-milliseconds. First, links that look open but carry
   * nothing are closed, to be opened again by the next reconnect: a host
   * that lost its power (or a peer cut off without a reset) never closes
   * its end, and without this the sentinel would wait on them forever,
   * never seeing the instance come back.
   */
  private checkSubjectivelyDown(ri: Instance): void {
    const now = this.nowMs();
    const elapsed = ri.actPingMs !== 0 ? now - ri.actPingMs : this.disconnected(ri) ? now - ri.lastAvailMs : 0;
    const downAfter = this.downAfterMs(ri);
    const settled = (link: ReplyLink): boolean => now - link.connectedAtMs > this.periods.minLinkReconnectMs;
    // The command link, open long enough, with a PING unanswered and no reply of any kind for half of down-after.
    if (ri.cc !== null && settled(ri.cc) && ri.actPingMs !== 0 && now - ri.actPingMs > downAfter / 2 && now - ri.lastPongMs > downAfter / 2) {
      ri.cc.close();
      ri.cc = null;
    }
    // The pub/sub link, open long enough, silent for three publish periods.
    if (ri.pc !== null && settled(ri.pc) && now - ri.pc.lastActivityMs > this.periods.publishMs * 3) {
      ri.pc.close();
      ri.pc = null;
    }
    // Down when it does not answer, or when a master has said it is a
    // replica for down-after plus two INFO periods.
    const reportsReplica = ri.kind === 'master' && ri.roleReported === 'slave' && now - ri.roleReportedMs > this.downAfterMs(ri) + this.periods.infoMs * 2;
    // Or a master that restarted and has not answered PONG for master-reboot-down-after-period.
    const rebooting = ri.kind === 'master' && ri.rebootSinceMs !== null && now - ri.rebootSinceMs > (ri as MonitoredMaster).config.rebootDownAfterMs;
    if (elapsed > downAfter || reportsReplica || rebooting) {
      if (!ri.sdown) {
        ri.sdown = true;
        ri.sdownSinceMs = now;
        this.event('warning', '+sdown', ri, '');
      }
    } else if (ri.sdown) {
      ri.sdown = false;
      this.event('warning', '-sdown', ri, '');
    }
  }

  /**
   * sentinelRefreshInstanceInfo: the run id, the replicas a master lists,
   * what a replica says of its master, and the role each reports.
   */
  refreshInfo(ri: Instance, info: string): void {
    ri.info = info;
    ri.masterLinkDownMs = 0;
    let role: 'master' | 'slave' | null = null;
    for (const l of info.split('\r\n')) {
      if (l.length >= 47 && l.startsWith('run_id:')) {
        const id = l.slice(7, 47);
        if (ri.runId === '') ri.runId = id;
        else if (ri.runId !== id) {
          this.event('notice', '+reboot', ri, '');
          if (ri.kind === 'master' && (ri as MonitoredMaster).config.rebootDownAfterMs !== 0) ri.rebootSinceMs = this.nowMs();
          ri.runId = id;
        }
      }
      if (ri.kind === 'master' && /^slave\d/.test(l)) {
        const ip = /ip=([^,]*)/.exec(l)?.[1];
        const port = /port=(\d+)/.exec(l)?.[1];
        if (ip !== undefined && port !== undefined) {
          const r = this.addReplica(ri as MonitoredMaster, ip, Number(port));
          if (r !== null) {
            this.event('notice', '+slave', r, '');
            this.flushConfig();
          }
        }
      }
      if (l.startsWith('master_link_down_since_seconds:')) ri.masterLinkDownMs = parseInt(l.slice(31), 10) * 1000;
      if (l.startsWith('role:master')) role = 'master';
      else if (l.startsWith('role:slave')) role = 'slave';
      if (role === 'slave') {
        if (l.startsWith('master_host:') && ri.masterHost?.toLowerCase() !== l.slice(12).toLowerCase()) {
          ri.masterHost = l.slice(12);
          ri.slaveConfChangeMs = this.nowMs();
        }
        if (l.startsWith('master_port:') && ri.masterPort !== parseInt(l.slice(12), 10)) {
          ri.masterPort = parseInt(l.slice(12), 10);
          ri.slaveConfChangeMs = this.nowMs();
        }
        if (l.startsWith('master_link_status:')) ri.masterLinkUp = l.slice(19).toLowerCase() === 'up';
        if (l.startsWith('slave_priority:')) ri.priority = parseInt(l.slice(15), 10);
        if (l.startsWith('slave_repl_offset:')) ri.replOffset = parseInt(l.slice(18), 10);
        if (l.startsWith('replica_announced:')) ri.replicaAnnounced = parseInt(l.slice(18), 10);
      }
    }
    ri.infoRefreshMs = this.nowMs();
    if (role !== null && role !== ri.roleReported) {
      ri.roleReportedMs = this.nowMs();
      ri.roleReported = role;
      if (role === 'slave') ri.slaveConfChangeMs = this.nowMs();
      const coherent = (ri.kind === 'master' ? 'master' : 'slave') === role;
      this.event('verbose', coherent ? '+role-change' : '-role-change', ri, ` new reported role is ${role}`);
    }
    // None of what follows is done in TILT mode.
    if (this.tilt) return;
    if (role !== null) actOnRole(this, ri, role);
  }

  /**
   * sentinelProcessHelloMessage: a hello names another sentinel of a
   * master (added with +sentinel the first time), its current epoch (a
   * newer one is adopted: +new-epoch) and its view of the master (a newer
   * config epoch with another address switches the master: +switch-master).
   */
  processHello(hello: string): void {
    const t = hello.split(',');
    if (t.length !== 8) return;
    const m = this.masters.get(t[4]!);
    if (m === undefined) return;
    const [ip, portText, runId] = [t[0]!, t[1]!, t[2]!];
    const port = parseInt(portText, 10);
    const currentEpoch = parseInt(t[3]!, 10);
    const masterPort = parseInt(t[6]!, 10);
    const masterConfigEpoch = parseInt(t[7]!, 10);
    let si = [...m.sentinels.values()].find((s) => s.ip === ip && s.port === port && s.runId === runId) ?? null;
    if (si === null) {
      const removed = m.sentinels.delete(runId);
      if (removed) {
        this.event('notice', '+sentinel-address-switch', m, ` ip ${ip} port ${port} for ${runId}`);
      } else {
        const other = [...m.sentinels.values()].find((s) => s.ip === ip && s.port === port);
        if (other !== undefined) {
          this.event('notice', '+sentinel-invalid-addr', other, '');
          for (const x of this.masters.values()) {
            const o = x.sentinels.get(other.runId);
            if (o !== undefined) {
              o.cc?.close();
              x.sentinels.delete(other.runId);
            }
          }
        }
      }
      si = this.addSentinel(m, ip, port, runId);
      if (si !== null) {
        if (!removed) this.event('notice', '+sentinel', si, '');
        this.flushConfig();
      }
    }
    if (currentEpoch > this.config.currentEpoch) {
      this.config.currentEpoch = currentEpoch;
      this.flushConfig();
      this.masterEvent('warning', '+new-epoch', m, String(currentEpoch));
    }
    if (si !== null && m.config.configEpoch < masterConfigEpoch) {
      m.config.configEpoch = masterConfigEpoch;
      if (masterPort !== m.config.port || t[5] !== m.config.ip) {
        this.event('warning', '+config-update-from', si, '');
        this.masterEvent('warning', '+switch-master', m, `${m.config.name} ${m.config.ip} ${m.config.port} ${t[5]} ${masterPort}`);
        const from = { ip: m.config.ip, port: m.config.port };
        this.resetMasterAndChangeAddress(m, t[5]!, masterPort);
        this.clientReconfScript(m, 'observer', from, { ip: m.config.ip, port: m.config.port });
      }
    }
    if (si !== null) si.lastHelloMs = this.nowMs();
  }

  /**
   * sentinelResetMasterAndChangeAddress: the master moves to the new
   * address; its replicas become the old ones but the new master, plus
   * the old master's address, and everything learned by monitoring is
   * forgotten.
   */
  resetMasterAndChangeAddress(m: MonitoredMaster, ip: string, port: number): void {
    const replicas: Array<[string, number]> = [];
    for (const r of m.replicas.values()) if (!(r.ip === ip && r.port === port)) replicas.push([r.ip, r.port]);
    if (!(m.config.ip === ip && m.config.port === port)) replicas.push([m.config.ip, m.config.port]);
    this.resetMaster(m);
    m.config.ip = ip;
    m.config.port = port;
    m.ip = ip;
    m.port = port;
    for (const [rip, rport] of replicas) {
      const r = this.addReplica(m, rip, rport);
      if (r !== null) this.event('notice', '+slave', r, '');
    }
    this.flushConfig();
  }

  /** sentinelResetMaster without its event: links closed, replicas forgotten, down states cleared (sentinels are kept unless asked). */
  resetMaster(m: MonitoredMaster, forgetSentinels = false): void {
    for (const r of m.replicas.values()) this.closeLinks(r);
    m.replicas.clear();
    if (forgetSentinels) {
      for (const s of m.sentinels.values()) this.closeLinks(s);
      m.sentinels.clear();
    }
    this.closeLinks(m);
    const fresh = this.newInstance('master', m.name, m.ip, m.port, null);
    for (const key of ['sdown', 'sdownSinceMs', 'actPingMs', 'lastPingMs', 'lastAvailMs', 'lastPongMs', 'lastPubMs', 'infoRefreshMs', 'info', 'roleReported', 'roleReportedMs', 'runId', 'lastReconnMs'] as const) {
      (m as unknown as Record<string, unknown>)[key] = fresh[key];
    }
    m.odown = false;
    m.createdMs = this.nowMs();
    m.leader = null;
    m.failoverState = 'none';
    m.failoverStateChangeMs = 0;
    m.failoverStartMs = 0;
    m.promotedReplica = null;
    m.forceFailover = false;
  }

  /** dropInstanceConnections: the links to a master and its replicas are closed, to be opened again by the next reconnect. */
  dropConnections(m: MonitoredMaster): void {
    for (const ri of [m, ...m.replicas.values()]) this.closeLinks(ri);
  }

  /**
   * sentinelSendAuthIfNeeded: AUTH first on a new link, with the master's
   * auth-pass (and auth-user) to a master or a replica, sentinel-pass (and
   * sentinel-user), or else requirepass, to another sentinel.
   */
  private sendAuthIfNeeded(ri: Instance, link: ReplyLink): void {
    let pass: string | null;
    let user: string | null;
    if (ri.kind === 'sentinel') {
      const g = this.config.globals;
      pass = g.sentinelPass !== '' ? g.sentinelPass : this.p.server.config.get('requirepass') || null;
      user = g.sentinelPass !== '' && g.sentinelUser !== '' ? g.sentinelUser : null;
    } else {
      const m = ri.master ?? (ri as MonitoredMaster);
      pass = m.config.authPass;
      user = m.config.authUser;
    }
    if (pass === null) return;
    link.send(user === null ? ['AUTH', pass] : ['AUTH', user, pass]);
  }

  private closeLinks(ri: Instance): void {
    ri.cc?.close();
    ri.pc?.close();
    ri.cc = null;
    ri.pc = null;
  }

  /**
   * sentinelEvent: "<type> <what>" in the log and on channel <type>, where
   * <what> names the instance ("master <name> <ip> <port>", or for a
   * replica or a sentinel "<slave|sentinel> <name> <ip> <port> @ <master name> <ip> <port>")
   * followed by `text`; without an instance, just `text`.
   */
  event(level: ServerLogLevel, type: string, ri: Instance | null, text: string): void {
    let who = '';
    if (ri !== null) {
      who = `${ri.kind} ${ri.name} ${ri.ip} ${ri.port}`;
      if (ri.master !== null) who += ` @ ${ri.master.config.name} ${ri.master.config.ip} ${ri.master.config.port}`;
    }
    const msg = who === '' ? text : text === '' ? who : text.startsWith(' ') ? `${who}${text}` : `${who} ${text}`;
    this.emit(level, type, msg, ri === null ? null : (ri.master ?? (ri as MonitoredMaster)));
  }

  /** An event about a master whose text does not name it (+new-epoch, +vote-for-leader, +switch-master): only its script knows. */
  masterEvent(level: ServerLogLevel, type: string, m: MonitoredMaster, text: string): void {
    this.emit(level, type, text, m);
  }

  private emit(level: ServerLogLevel, type: string, msg: string, master: MonitoredMaster | null): void {
    this.p.log(`${type} ${msg}`, level);
    if (level !== 'debug') this.p.server.pubsub.publish(type, msg, GLOBAL);
    // A warning about an instance runs its master's notification script with the event's type and text.
    if (level === 'warning' && master !== null && master.config.notificationScript !== null) this.scripts.schedule(master.config.notificationScript, [type, msg]);
  }

  /**
   * sentinelCallClientReconfScript: the master's client-reconfig-script, told
   * `<master-name> <leader|observer> start <from-ip> <from-port> <to-ip> <to-port>`.
   */
  clientReconfScript(m: MonitoredMaster, role: 'leader' | 'observer', from: { ip: string; port: number }, to: { ip: string; port: number }): void {
    const path = m.config.clientReconfigScript;
    if (path !== null) this.scripts.schedule(path, [m.config.name, role, 'start', from.ip, String(from.port), to.ip, String(to.port)]);
  }

  /** access(path, X_OK) on the host: a script must exist and be executable to be set. */
  executable(path: string): boolean {
    return this.p.host.programs?.executable(path, this.cwd()) ?? false;
  }

  /** The directory the process works in (Redis changes to `dir`): relative script paths start there. */
  cwd(): string {
    return this.p.server.config.get('dir');
  }

  /** sentinelFlushConfig: rewrites the config file; false when it cannot be written. */
  flushConfig(): boolean {
    for (const m of this.masters.values()) {
      // rewriteConfigSentinelOption skips a replica at the master's own address.
      m.config.knownReplicas = [...m.replicas.values()].filter((r) => !(r.ip === m.config.ip && r.port === m.config.port)).map((r) => ({ ip: r.ip, port: r.port }));
      m.config.knownSentinels = [...m.sentinels.values()].map((s) => ({ ip: s.ip, port: s.port, runId: s.runId }));
      m.config.leaderEpoch = m.leaderEpoch;
    }
    const defaults = { downAfterMs: this.periods.defaultDownAfterMs, failoverTimeoutMs: this.periods.defaultFailoverTimeoutMs };
    // The timer's random hz is not a setting: the file keeps the one it started with (sentinelFlushConfig).
    const value = (name: string): string => (name === 'hz' ? this.configuredHz : this.p.server.config.get(name));
    return this.configFile.flush((old) => rewriteSentinelConfig(this.config, defaults, { old, value })) === null;
  }

  monitor(name: string, ip: string, port: number, quorum: number): MonitoredMaster | string {
    if (this.masters.has(name)) return 'Duplicate master name.';
    const config = newMasterConfig(name, ip, port, quorum);
    // createSentinelRedisInstance takes the defaults SENTINEL DEBUG may have changed.
    config.downAfterMs = this.periods.defaultDownAfterMs;
    config.failoverTimeoutMs = this.periods.defaultFailoverTimeoutMs;
    this.config.masters.push(config);
    const m = this.masterInstance(config);
    this.masters.set(name, m);
    return m;
  }

  remove(name: string): void {
    const m = this.masters.get(name);
    if (m !== undefined) {
      this.resetMaster(m, true);
      this.masters.delete(name);
    }
    const i = this.config.masters.findIndex((x) => x.name === name);
    if (i >= 0) this.config.masters.splice(i, 1);
  }

  /** sentinelResetMaster (SENTINEL RESET): forgets replicas and sentinels learned so far and the down states. */
  reset(m: MonitoredMaster): void {
    this.resetMaster(m, true);
    this.event('warning', '+reset-master', m, '');
  }
}

/**
 * sentinelGetCurrentMasterAddress: once the promoted replica is a master
 * (the failover reconfigures the others), it is the master's address.
 */
export function currentMasterAddress(m: MonitoredMaster): { ip: string; port: number } {
  const p = m.promotedReplica;
  if (p !== null && (m.failoverState === 'reconf_slaves' || m.failoverState === 'update_config')) return { ip: p.ip, port: p.port };
  return { ip: m.config.ip, port: m.config.port };
}

/** A reply's text when it is a bulk or verbatim string. */
export function replyText(r: Reply): string | null {
  return typeof r === 'string' ? r : r instanceof VerbatimReply ? r.text : null;
}

export { SentinelConfigError };
