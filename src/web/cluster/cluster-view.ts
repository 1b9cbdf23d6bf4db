import { repr } from '../../../emulator/redis-cli/index.js';
import { typeOf, stringOf, type TypeName, type Value, bytesToHuman, infoText, usedMemory } from '../../../emulator/server/index.js';
import { Disk, type FaultOp, type Host, type LinkProfile, type Link } from '../../../emulator/sim/index.js';
import { RedisProcess, type RedisProcessOptions } from '../../../emulator/process/index.js';
import type { World } from '../../../emulator/world/world.js';
import { diskFiles, type DiskFilesView } from '../disk/disk-view.js';
import { terminalText } from '../terminal/sanitize.js';

/**
 * What the cluster panel shows, derived from the world as plain data: the
 * panel never holds a reference into the emulator, and a view is only
 * rebuilt when the world has moved. Every text that comes from keys,
 * values or command lines is already quoted or made visible here, so
 * nothing the world holds is ever shown as it is.
 */
export interface ClusterView {
  readonly hosts: readonly HostView[];
  /** Every pair of hosts, with the path between them. */
  readonly links: readonly LinkView[];
  /** The servers as replication ties them: primaries with their replicas, and theirs. */
  readonly topology: readonly TopologyNode[];
  /** Virtual time when the view was built (us since the Unix epoch). */
  readonly nowUs: number;
}

export interface HostView {
  readonly name: string;
  readonly profile: string;
  readonly ip: string;
  readonly powered: boolean;
  readonly processes: readonly ProcessView[];
  readonly servers: readonly ServerView[];
  /** Servers started on this host before that do not run now: they can be started again. */
  readonly stopped: readonly StoppedServerView[];
  readonly disk: DiskStateView;
  /** The host's files, for the disk view. */
  readonly files: DiskFilesView;
}

export interface StoppedServerView {
  readonly port: number;
  /** How it was started: the command line as typed, or the options it was given. */
  readonly commandLine: string;
}

export interface DiskStateView {
  /** 'ssd', 'hdd', 'nvme', or 'real' for a folder of the real machine. */
  readonly kind: string;
  readonly usedBytes: number;
  /** Writes that need space fail with ENOSPC. */
  readonly full: boolean;
  /** Calls of each kind that will fail with EIO. */
  readonly failing: Readonly<Record<FaultOp, number>>;
}

export interface LinkView {
  readonly a: string;
  readonly b: string;
  readonly profile: string;
  readonly rttUs: number;
  readonly bandwidthBps: number;
  /** Which directions are cut: none, both, or only one ("a->b" means a's packets do not reach b). */
  readonly cut: 'none' | 'both' | 'a->b' | 'b->a';
}

export interface ProcessView {
  readonly pid: number;
  /** A running redis-server, shown as a server card of its own. */
  readonly isServer: boolean;
  readonly name: string;
  /** The command line, control characters made visible. */
  readonly command: string;
}

export interface ServerView {
  readonly pid: number;
  readonly port: number;
  /** A redis-sentinel (or redis-server --sentinel): it holds no data and replicates nothing, so the topology leaves it out. */
  readonly sentinel: boolean;
  readonly clients: number;
  readonly usedMemoryBytes: number;
  /** INFO's used_memory_human: "1.03M". */
  readonly usedMemoryHuman: string;
  /** The databases that hold keys. */
  readonly dbs: readonly DbView[];
  readonly persistence: PersistenceView;
  readonly replication: ReplicationView;
}

export interface PersistenceView {
  /** Loading the dataset at start: clients get -LOADING. */
  readonly loading: boolean;
  readonly bgsaveInProgress: boolean;
  /** A running BGSAVE's progress through the keys (INFO current_save_keys_*). */
  readonly bgsaveKeysProcessed: number;
  readonly bgsaveKeysTotal: number;
  /** Unix seconds of the last successful save, or null when none since the start. */
  readonly lastSaveUnixS: number | null;
  readonly lastBgsaveOk: boolean;
  readonly changesSinceSave: number;
  /** The save rules ("3600 1 300 100"), empty when none. */
  readonly saveRules: string;
  readonly aofEnabled: boolean;
  /** appendfsync: always, everysec or no. */
  readonly appendfsync: string;
  readonly aofRewriteInProgress: boolean;
  readonly aofLastWriteOk: boolean;
  /** The MISCONF error writes get now, when a disk error stops them. */
  readonly writesRefused: string | null;
}

/** INFO replication, as the server reports it. */
export interface ReplicationView {
  /** 'master' or 'slave', as INFO says. */
  readonly role: string;
  readonly connectedReplicas: number;
  readonly offset: number;
  /** A replica's primary ("10.0.0.1:6379") and link state ("up", "down"); null on a primary. */
  readonly primary: string | null;
  readonly linkStatus: string | null;
  /** master_host and master_port of a replica. */
  readonly primaryHost: string | null;
  readonly primaryPort: number | null;
  /** A full sync's transfer under way: bytes read of the total (-1 or 0 while the size is not known). */
  readonly sync: { readonly readBytes: number; readonly totalBytes: number } | null;
  /** Seconds since the link went down, when it is down and was ever up. */
  readonly linkDownSeconds: number | null;
  /** The replicas it serves (its slaveN lines). */
  readonly replicas: readonly ReplicaLineView[];
  /** master_failover_state. */
  readonly failoverState: string;
}

/** One slaveN line of INFO replication. */
export interface ReplicaLineView {
  readonly ip: string;
  readonly port: number;
  readonly state: string;
  /** The offset it acknowledged. */
  readonly offset: number;
  readonly lagSeconds: number;
}

/**
 * A server in the replication topology. A replica's link is seen from
 * both ends: its own INFO (up, down, syncing) and its primary's slaveN
 * line (the offset it acknowledged, its lag).
 */
export interface TopologyNode {
  readonly host: string;
  readonly port: number;
  readonly role: 'primary' | 'replica';
  readonly offset: number;
  /** For a replica: the primary it was told to follow, as given ("B:6379"). */
  readonly follows: string | null;
  readonly link: TopologyLink | null;
  readonly children: readonly TopologyNode[];
}

export interface TopologyLink {
  /** 'up', 'sync' (a full sync's transfer), 'down'. */
  readonly status: 'up' | 'sync' | 'down';
  /** Percent of the RDB received during a transfer of known size. */
  readonly syncPercent: number | null;
  /** Seconds since the replica's last ACK, as its primary reports it. */
  readonly lagSeconds: number | null;
  /** Bytes of the primary's stream the replica has not acknowledged. */
  readonly behindBytes: number | null;
  /** Its primary is not a server of this world (or not running). */
  readonly primaryMissing: boolean;
}

export interface DbView {
  readonly index: number;
  readonly keys: number;
  readonly expires: number;
  /** The first keys of the database, as a glance at what it holds. */
  readonly sample: readonly KeySample[];
}

export interface KeySample {
  /** The key as redis-cli prints it: quoted, every non-printable byte escaped. */
  readonly name: string;
  readonly type: TypeName;
  /** A string's value (quoted like the name, cut when long), or a collection's size. */
  readonly detail: string;
}

/** Keys shown per database. */
export const SAMPLE_KEYS = 8;
/** Characters of a quoted name or value shown before it is cut. */
export const PREVIEW_CHARS = 48;

export function clusterView(world: World): ClusterView {
  const hosts: HostView[] = [];
  const nowUs = world.kernel.now;
  for (const host of world.hosts.values()) {
    const processes: ProcessView[] = [];
    const servers: ServerView[] = [];
    for (const p of host.processes.values()) {
      const isServer = p instanceof RedisProcess && p.alive;
      processes.push({ pid: p.pid, isServer, name: terminalText(p.name), command: terminalText(p.argv.join(' ')) });
      if (isServer) servers.push(serverView(p as RedisProcess, nowUs));
    }
    processes.sort((a, b) => a.pid - b.pid);
    servers.sort((a, b) => a.port - b.port);
    const stopped: StoppedServerView[] = [];
    for (const [port, opts] of world.redisLaunches(host.name)) {
      if (!servers.some((s) => s.port === port)) stopped.push({ port, commandLine: launchText(port, opts) });
    }
    hosts.push({
      name: host.name,
      profile: host.profile.name,
      ip: host.ip,
      powered: host.powered,
      processes,
      servers,
      stopped,
      disk: diskState(host),
      files: diskFiles(host.disk),
    });
  }
  return { hosts, links: linkViews(world), topology: topology(world, hosts), nowUs };
}

/**
 * The servers as replication ties them. A replica's primary is found the
 * way its host resolves the name or address it was given; a replica whose
 * primary does not run here is a root of its own, marked so, and servers
 * that follow each other in a loop are shown from the first of them.
 */
function topology(world: World, hosts: readonly HostView[]): TopologyNode[] {
  const servers: Array<{ host: string; ip: string; s: ServerView }> = [];
  for (const h of hosts) for (const s of h.servers) if (!s.sentinel) servers.push({ host: h.name, ip: h.ip, s });
  const key = (host: string, port: number): string => `${host}:${port}`;
  const byKey = new Map(servers.map((x) => [key(x.host, x.s.port), x]));
  const parentOf = new Map<string, string | null>();
  for (const x of servers) {
    const r = x.s.replication;
    if (r.role !== 'slave' || r.primaryHost === null) {
      parentOf.set(key(x.host, x.s.port), null);
      continue;
    }
    const to = world.network.resolve(x.host, r.primaryHost);
    const k = to === null ? null : key(to, r.primaryPort ?? 6379);
    parentOf.set(key(x.host, x.s.port), k !== null && byKey.has(k) ? k : null);
  }
  const placed = new Set<string>();
  const build = (k: string): TopologyNode => {
    placed.add(k);
    const x = byKey.get(k)!;
    const r = x.s.replication;
    const parentKey = parentOf.get(k) ?? null;
    const parent = parentKey === null ? null : byKey.get(parentKey)!;
    const children: TopologyNode[] = [];
    for (const [ck, pk] of parentOf) if (pk === k && !placed.has(ck)) children.push(build(ck));
    let link: TopologyLink | null = null;
    if (r.role === 'slave') {
      // The primary lists the replica by the address it sees and the port it announced.
      const seenIp = parent === null ? null : parent.host === x.host ? '127.0.0.1' : x.ip;
      const line = parent?.s.replication.replicas.find((l) => l.ip === seenIp && l.port === x.s.port) ?? null;
      const sync = r.sync;
      link = {
        status: sync !== null ? 'sync' : r.linkStatus === 'up' ? 'up' : 'down',
        syncPercent: sync !== null && sync.totalBytes > 0 ? Math.floor((sync.readBytes / sync.totalBytes) * 100) : null,
        lagSeconds: line?.state === 'online' ? line.lagSeconds : null,
        behindBytes: line !== null && parent !== null ? Math.max(0, parent.s.replication.offset - line.offset) : null,
        primaryMissing: parent === null,
      };
    }
    return {
      host: x.host,
      port: x.s.port,
      role: r.role === 'slave' ? 'replica' : 'primary',
      offset: r.offset,
      follows: r.role === 'slave' ? terminalText(`${r.primaryHost}:${r.primaryPort}`) : null,
      link,
      children,
    };
  };
  const roots: TopologyNode[] = [];
  for (const x of servers) {
    const k = key(x.host, x.s.port);
    if (parentOf.get(k) === null && !placed.has(k)) roots.push(build(k));
  }
  // Servers that follow each other in a loop have no root: show them from the first.
  for (const x of servers) {
    const k = key(x.host, x.s.port);
    if (!placed.has(k)) roots.push(build(k));
  }
  return roots;
}

/** The command line a stopped server was started with, as a learner would type it again. */
function launchText(port: number, opts: RedisProcessOptions): string {
  const words = opts.commandLine !== undefined ? ['redis-server', ...opts.commandLine.args] : ['redis-server', '--port', String(port), ...Object.entries(opts.config ?? {}).flatMap(([k, v]) => [`--${k}`, v])];
  return terminalText(words.map((w) => (w === '' || /[\s'"\\]/.test(w) ? repr(w) : w)).join(' '));
}

function diskState(host: Host): DiskStateView {
  const disk = host.disk;
  if (!(disk instanceof Disk)) return { kind: 'real', usedBytes: disk.usedBytes, full: false, failing: { write: 0, fsync: 0, rename: 0 } };
  return { kind: disk.profile.kind, usedBytes: disk.usedBytes, full: disk.isFull, failing: disk.pendingFailures };
}

/**
 * Every pair of hosts, linked or not yet: a pair that never talked has the
 * network's default path, and reading it must not create it (that would
 * change the world), so links are looked up, never made.
 */
function linkViews(world: World): LinkView[] {
  const net = world.network;
  const made = new Map<string, Link>();
  for (const l of net.allLinks()) if (l.a !== l.b) made.set(`${l.a}\u0000${l.b}`, l);
  const names = [...world.hosts.keys()];
  const out: LinkView[] = [];
  for (let i = 0; i < names.length; i++) {
    for (let j = i + 1; j < names.length; j++) {
      const [a, b] = names[i]! < names[j]! ? [names[i]!, names[j]!] : [names[j]!, names[i]!];
      const l = made.get(`${a}\u0000${b}`);
      const profile: LinkProfile = l?.profile ?? net.defaultProfile;
      const cut = l === undefined ? 'none' : l.ab.cut && l.ba.cut ? 'both' : l.ab.cut ? 'a->b' : l.ba.cut ? 'b->a' : 'none';
      out.push({ a, b, profile: profile.name, rttUs: profile.rttUs, bandwidthBps: profile.bandwidthBps, cut });
    }
  }
  return out;
}

function serverView(p: RedisProcess, nowUs: number): ServerView {
  const server = p.server;
  const used = usedMemory(server);
  const nowMs = nowUs / 1000;
  const dbs: DbView[] = [];
  for (const db of server.dbs) {
    if (db.dict.size === 0) continue;
    const sample: KeySample[] = [];
    for (const [key, value] of db.dict) {
      // A key past its time but not yet reclaimed is gone for every client.
      const at = db.expires.size === 0 ? undefined : db.expires.get(key);
      if (at !== undefined && at <= nowMs) continue;
      sample.push({ name: preview(key), type: typeOf(value), detail: detail(value) });
      if (sample.length === SAMPLE_KEYS) break;
    }
    dbs.push({ index: db.id, keys: db.dict.size, expires: db.expires.size, sample });
  }
  const ps = server.stats.persistence;
  const config = server.config;
  const persistence: PersistenceView = {
    loading: ps.loading,
    bgsaveInProgress: ps.rdbBgsaveInProgress,
    bgsaveKeysProcessed: ps.currentSaveKeysProcessed,
    bgsaveKeysTotal: ps.currentSaveKeysTotal,
    lastSaveUnixS: ps.lastSaveUnixS,
    lastBgsaveOk: ps.rdbLastBgsaveOk,
    changesSinceSave: server.dirty,
    saveRules: config.get('save').trim(),
    aofEnabled: config.getBool('appendonly'),
    appendfsync: config.get('appendfsync'),
    aofRewriteInProgress: ps.aofRewriteInProgress,
    aofLastWriteOk: ps.aofLastWriteOk,
    writesRefused: ps.diskErrorReply(server),
  };
  return {
    pid: p.pid,
    port: p.port,
    sentinel: p.sentinelMode,
    clients: server.clients.size,
    usedMemoryBytes: used,
    usedMemoryHuman: bytesToHuman(used),
    dbs,
    persistence,
    replication: replicationView(infoText(server, ['replication'])),
  };
}

/**
 * The replication state as INFO replication reports it, so the panel shows
 * whatever the server's replication engine says, and nothing it does not.
 */
export function replicationView(info: string): ReplicationView {
  const fields = new Map<string, string>();
  for (const line of info.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0 && !line.startsWith('#')) fields.set(line.slice(0, colon), line.slice(colon + 1));
  }
  const role = fields.get('role') ?? 'master';
  const replica = role === 'slave';
  const host = fields.get('master_host');
  const replicas: ReplicaLineView[] = [];
  for (const [k, v] of fields) {
    if (!/^slave\d+$/.test(k)) continue;
    const f = new Map(v.split(',').map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)] as const));
    replicas.push({ ip: f.get('ip') ?? '', port: Number(f.get('port') ?? 0), state: f.get('state') ?? '', offset: Number(f.get('offset') ?? 0), lagSeconds: Number(f.get('lag') ?? 0) });
  }
  const down = fields.get('master_link_down_since_seconds');
  return {
    role,
    connectedReplicas: Number(fields.get('connected_slaves') ?? 0),
    offset: Number((replica ? fields.get('slave_repl_offset') : undefined) ?? fields.get('master_repl_offset') ?? 0),
    primary: replica && host !== undefined ? `${host}:${fields.get('master_port') ?? '6379'}` : null,
    linkStatus: replica ? (fields.get('master_link_status') ?? null) : null,
    primaryHost: replica ? (host ?? null) : null,
    primaryPort: replica ? Number(fields.get('master_port') ?? 6379) : null,
    sync: fields.get('master_sync_in_progress') === '1' ? { readBytes: Number(fields.get('master_sync_read_bytes') ?? 0), totalBytes: Number(fields.get('master_sync_total_bytes') ?? -1) } : null,
    linkDownSeconds: down === undefined || down === '-1' ? null : Number(down),
    replicas,
    failoverState: fields.get('master_failover_state') ?? 'no-failover',
  };
}

/** A byte string quoted as redis-cli quotes it, cut to PREVIEW_CHARS. */
export function preview(bytes: string): string {
  // Quoting at most the first bytes keeps a 512 MB value cheap to glance at.
  const head = bytes.length > PREVIEW_CHARS ? bytes.slice(0, PREVIEW_CHARS) : bytes;
  const quoted = repr(head);
  if (quoted.length <= PREVIEW_CHARS && head.length === bytes.length) return quoted;
  return quoted.slice(0, PREVIEW_CHARS - 1) + '…';
}

function detail(v: Value): string {
  if (typeof v === 'string' || v.type === 'string') return preview(stringOf(v));
  switch (v.type) {
    case 'list':
      return count(v.items.length, 'item');
    case 'hash':
      return count(v.map.size, 'field');
    case 'set':
      return count(v.set.size, 'member');
    case 'zset':
      return count(v.size, 'member');
    case 'stream':
      return count(v.length, 'entry');
  }
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
