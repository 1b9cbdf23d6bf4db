import type { ProcessModule, ProcessServices } from '../process/services.js';
import type { OutboundConnection } from '../process/outbound.js';
import type { RedisServer } from '../server/server.js';
import { GLOBAL } from '../server/pubsub.js';
import type { ServerLogLevel } from '../server/log-line.js';
import { bytesFromArray, bytesToArray } from '../resp/bytes.js';
import { parseSentinelConfig, rewriteSentinelConfig, SentinelConfigError, type MonitoredMasterConfig, type SentinelConfig } from './config.js';

/** The Sentinel of each sentinel-mode server, for its command handlers. */
const SENTINELS = new WeakMap<RedisServer, Sentinel>();

export function sentinelOf(server: RedisServer): Sentinel | undefined {
  return SENTINELS.get(server);
}

/** A master this sentinel monitors, with what it knows of it beyond the config. */
export interface MonitoredMaster {
  readonly config: MonitoredMasterConfig;
  /** SRI_S_DOWN / SRI_O_DOWN of src/sentinel.c. */
  sdown: boolean;
  odown: boolean;
  runId: string;
  /** When the instance was created (the times SENTINEL MASTER reports count from it until a reply arrives), ms. */
  createdMs: number;
  /** The command link (instanceLink.cc); null while disconnected. */
  link: OutboundConnection | null;
  /** act_ping_time: when the PING still unanswered was sent, 0 when none is. */
  actPingMs: number;
  /** last_ping_time: when the last PING was sent. */
  lastPingMs: number;
  /** last_avail_time: the last valid reply to PING (+PONG, -LOADING, -MASTERDOWN). */
  lastAvailMs: number;
}

/** SENTINEL_PING_PERIOD of src/sentinel.c. */
const PING_PERIOD_MS = 1000;

/**
 * The sentinel state of a redis-sentinel process (struct sentinelState in
 * src/sentinel.c): its id, the current epoch and the masters it monitors,
 * read from and rewritten into its config file. Events go to the log and
 * to the pub/sub channel named after them, as sentinelEvent does.
 */
export class Sentinel implements ProcessModule {
  readonly config: SentinelConfig;
  readonly masters = new Map<string, MonitoredMaster>();

  constructor(
    readonly p: ProcessServices,
    readonly configPath: string,
  ) {
    this.config = parseSentinelConfig(bytesFromArray(p.host.disk.readFile(configPath)));
    for (const m of this.config.masters) this.masters.set(m.name, this.instance(m));
    SENTINELS.set(p.server, this);
  }

  private instance(config: MonitoredMasterConfig): MonitoredMaster {
    const now = this.nowMs();
    return { config, sdown: false, odown: false, runId: '', createdMs: now, link: null, actPingMs: now, lastPingMs: 0, lastAvailMs: now };
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
   * sentinelTimer, run from serverCron: keep a link to each master, PING
   * it every second, and judge it subjectively down when no valid reply
   * came for down-after-milliseconds (sentinelCheckSubjectivelyDown).
   */
  cron(): void {
    const now = this.nowMs();
    for (const m of this.masters.values()) {
      if (m.link === null) this.reconnect(m);
      if (m.link !== null && now - m.lastPingMs >= PING_PERIOD_MS) {
        m.link.write('*1\r\n$4\r\nPING\r\n');
        m.lastPingMs = now;
        if (m.actPingMs === 0) m.actPingMs = now;
      }
      const elapsed = m.actPingMs !== 0 ? now - m.actPingMs : now - m.lastAvailMs;
      if (elapsed > m.config.downAfterMs) {
        if (!m.sdown) {
          m.sdown = true;
          this.event('warning', '+sdown', m, '');
        }
      } else if (m.sdown) {
        m.sdown = false;
        this.event('warning', '-sdown', m, '');
      }
    }
  }

  private reconnect(m: MonitoredMaster): void {
    const link = this.p.connect(m.config.ip, m.config.port, {
      connected: () => {},
      data: (bytes) => {
        // Each reply to PING is one line; a valid one makes the instance available (sentinelPingReplyCallback).
        for (const line of bytesFromArray(bytes).split('\r\n')) {
          if (line === '+PONG' || line.startsWith('-LOADING') || line.startsWith('-MASTERDOWN')) {
            m.lastAvailMs = this.nowMs();
            m.actPingMs = 0;
          }
        }
      },
      closed: () => {
        if (m.link === link) m.link = null;
      },
    });
    if (typeof link !== 'string') m.link = link;
  }

  /** sentinelEvent: "<type> master <name> <ip> <port> <text>" in the log and on channel <type>. */
  event(level: ServerLogLevel, type: string, m: MonitoredMaster | null, text: string): void {
    const who = m === null ? '' : `master ${m.config.name} ${m.config.ip} ${m.config.port}`;
    const msg = who === '' ? text : text === '' ? who : `${who} ${text}`;
    this.p.log(`${type} ${msg}`, level);
    if (level !== 'debug') this.p.server.pubsub.publish(type, msg, GLOBAL);
  }

  /** sentinelFlushConfig: rewrites the config file; false when it cannot be written. */
  flushConfig(): boolean {
    try {
      this.p.host.disk.writeFile(this.configPath, bytesToArray(rewriteSentinelConfig(this.config)));
      return true;
    } catch {
      return false;
    }
  }

  monitor(name: string, ip: string, port: number, quorum: number): MonitoredMaster | string {
    if (this.masters.has(name)) return 'Duplicated master name';
    const config: MonitoredMasterConfig = {
      name,
      ip,
      port,
      quorum,
      downAfterMs: 30_000,
      failoverTimeoutMs: 180_000,
      parallelSyncs: 1,
      configEpoch: 0,
      leaderEpoch: 0,
      knownReplicas: [],
      knownSentinels: [],
    };
    this.config.masters.push(config);
    const m = this.instance(config);
    this.masters.set(name, m);
    return m;
  }

  remove(name: string): void {
    this.masters.delete(name);
    const i = this.config.masters.findIndex((m) => m.name === name);
    if (i >= 0) this.config.masters.splice(i, 1);
  }

  /** sentinelResetMaster: forgets replicas and sentinels learned so far and the down states. */
  reset(m: MonitoredMaster): void {
    m.config.knownReplicas = [];
    m.config.knownSentinels = [];
    m.sdown = false;
    m.odown = false;
    m.runId = '';
    this.event('warning', '+reset-master', m, '');
  }
}

export { SentinelConfigError };
