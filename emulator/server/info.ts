import type { RedisServer } from './server.js';
import type { Client } from './client.js';
import { DICT_ENTRY, keyMemoryUsage } from './memory-estimate.js';
import { pubsubMemOverhead } from './pubsub.js';
import { asciiLower } from '../resp/bytes.js';
import { cString } from '../numbers/c-string.js';

/**
 * The text of INFO (src/server.c genRedisInfoString): the same sections,
 * fields and order as Redis 7.0, with values taken from the emulator's own
 * state. What a real process measures from its host (pid, CPU time, RSS,
 * allocator statistics) is modelled with plausible, stable numbers.
 */

export const REDIS_VERSION = '7.0.15';

/** A section renderer: the section's lines, each ending in CRLF, without its header. */
export type InfoSectionRenderer = (server: RedisServer) => string;

/** The sections of a plain INFO, in order ("module_list" is the Modules section). */
const DEFAULT_SECTIONS = [
  'server', 'clients', 'memory', 'persistence', 'stats', 'replication', 'cpu', 'module_list', 'errorstats', 'cluster', 'keyspace',
];

const overrides = new WeakMap<RedisServer, Map<string, InfoSectionRenderer>>();

/**
 * Replaces the body of one INFO section for one server: the replication
 * and persistence engines describe their own state this way.
 *
 *   setInfoSection(server, 'replication', (s) => `role:slave\r\n...`);
 */
export function setInfoSection(server: RedisServer, name: 'replication' | 'persistence' | 'modules', render: InfoSectionRenderer): void {
  let m = overrides.get(server);
  if (!m) overrides.set(server, (m = new Map()));
  m.set(name, render);
}

/** INFO [section ...]: the text for the requested sections (see src/server.c genInfoSectionDict). */
export function infoText(server: RedisServer, args: readonly string[]): string {
  const wanted = new Set<string>();
  let all = false;
  if (args.length === 0) {
    for (const s of DEFAULT_SECTIONS) wanted.add(s);
  }
  for (const raw of args) {
    const a = asciiLower(cString(raw));
    if (a === 'default') for (const s of DEFAULT_SECTIONS) wanted.add(s);
    else if (a === 'all' || a === 'everything') all = true;
    else wanted.add(a);
  }
  const has = (name: string) => all || wanted.has(name);
  const own = overrides.get(server);
  const body = (name: string, render: InfoSectionRenderer) => (own?.get(name) ?? render)(server);
  let out = '';
  const section = (header: string, text: string) => {
    if (out.length !== 0) out += '\r\n';
    out += `# ${header}\r\n${text}`;
  };
  if (has('server')) section('Server', serverSection(server));
  if (has('clients')) section('Clients', clientsSection(server));
  if (has('memory')) section('Memory', memorySection(server));
  if (has('persistence')) section('Persistence', body('persistence', persistenceSection));
  if (has('stats')) section('Stats', statsSection(server));
  if (has('replication')) section('Replication', body('replication', replicationSection));
  if (has('cpu')) section('CPU', cpuSection(server));
  if (has('module_list') || has('modules')) section('Modules', body('modules', () => ''));
  if (has('commandstats')) section('Commandstats', commandStatsSection(server));
  if (has('errorstats')) section('Errorstats', errorStatsSection(server));
  if (has('latencystats')) section('Latencystats', latencyStatsSection(server));
  if (has('cluster')) section('Cluster', `cluster_enabled:${server.config.getBool('cluster-enabled') ? 1 : 0}\r\n`);
  if (has('keyspace')) section('Keyspace', keyspaceSection(server));
  return out;
}

// ---- formatting helpers ----

/**
 * printf's "%.Nf": like toFixed, but an exact binary tie rounds to even,
 * as glibc does (1.125 prints as "1.12").
 */
export function printfFixed(d: number, digits: number): string {
  const s = d.toFixed(digits);
  if (!Number.isFinite(d)) return s;
  const wide = Math.abs(d).toFixed(Math.min(100, digits + 30));
  const dot = wide.indexOf('.');
  const rest = wide.slice(dot + 1 + digits);
  if (!/^50*$/.test(rest)) return s;
  // An exact tie: keep the truncated value if its last digit is even.
  const truncated = wide.slice(0, dot + 1 + digits).replace(/\.$/, '');
  const last = truncated.charCodeAt(truncated.length - 1) - 48;
  if (last % 2 === 0) return (d < 0 ? '-' : '') + truncated;
  return s;
}

/** src/server.c bytesToHuman: 100B, 1.50K, 2.00M ... */
export function bytesToHuman(n: number): string {
  const units: Array<[number, string]> = [
    [1024 ** 2, 'K'], [1024 ** 3, 'M'], [1024 ** 4, 'G'], [1024 ** 5, 'T'], [1024 ** 6, 'P'],
  ];
  if (n < 1024) return `${n}B`;
  for (const [limit, unit] of units) {
    if (n < limit) return printfFixed(n / (limit / 1024), 2) + unit;
  }
  return `${n}B`;
}

/** Redis's getSafeInfoString: characters that would break the format become '_'. */
function safeInfoName(s: string): string {
  return s.replace(/[#:\n\r]/g, '_');
}

function seconds(ms: number): number {
  return Math.floor(ms / 1000);
}

// ---- Server ----

/** A stable, plausible process id for this server (derived from its run id). */
export function processId(server: RedisServer): number {
  return server.pid?.() ?? 1000 + (parseInt(server.runId.slice(0, 6), 16) % 60000);
}

/** server.hz: configured hz, doubled while there are more than 200 clients per tick (dynamic-hz). */
export function effectiveHz(server: RedisServer): number {
  let hz = server.config.getNumber('hz');
  if (server.config.getBool('dynamic-hz')) {
    while (server.clients.size / hz > 200) {
      hz *= 2;
      if (hz > 500) {
        hz = 500;
        break;
      }
    }
  }
  return hz;
}

function serverSection(server: RedisServer): string {
  const uptimeS = seconds(server.nowMs) - seconds(server.startMs);
  const cluster = server.config.getBool('cluster-enabled');
  return (
    `redis_version:${REDIS_VERSION}\r\n` +
    'redis_git_sha1:00000000\r\n' +
    'redis_git_dirty:0\r\n' +
    'redis_build_id:ae4d7c971a948f0\r\n' +
    `redis_mode:${cluster ? 'cluster' : 'standalone'}\r\n` +
    'os:Linux 6.1.0-18-amd64 x86_64\r\n' +
    'arch_bits:64\r\n' +
    'monotonic_clock:POSIX clock_gettime\r\n' +
    'multiplexing_api:epoll\r\n' +
    'atomicvar_api:c11-builtin\r\n' +
    'gcc_version:12.2.0\r\n' +
    `process_id:${processId(server)}\r\n` +
    'process_supervised:no\r\n' +
    `run_id:${server.runId}\r\n` +
    `tcp_port:${server.config.getNumber('port') || server.config.getNumber('tls-port')}\r\n` +
    `server_time_usec:${server.nowUs}\r\n` +
    `uptime_in_seconds:${uptimeS}\r\n` +
    `uptime_in_days:${Math.floor(uptimeS / 86400)}\r\n` +
    `hz:${effectiveHz(server)}\r\n` +
    `configured_hz:${server.config.getNumber('hz')}\r\n` +
    `lru_clock:${server.lruClock}\r\n` +
    'executable:/usr/bin/redis-server\r\n' +
    `config_file:${server.configFile?.path ?? ''}\r\n` +
    'io_threads_active:0\r\n' +
    shutdownLine(server)
  );
}

/** Shown only while a shutdown waits for lagging replicas (src/server.c genRedisInfoString). */
function shutdownLine(server: RedisServer): string {
  const ms = server.replication.primary.shutdownInMs();
  return ms === null ? '' : `shutdown_in_milliseconds:${ms}\r\n`;
}

// ---- Clients ----

function clientsSection(server: RedisServer): string {
  let normal = 0;
  let blocked = 0;
  let maxIn = 0;
  for (const c of server.clients.values()) {
    if (c.role !== 'replica') normal++;
    if (c.blocked) blocked++;
    if (c.queryBufferBytes > maxIn) maxIn = c.queryBufferBytes;
  }
  // A SHUTDOWN waiting for lagging replicas blocks its client too.
  blocked += server.replication.primary.shutdownWaiters();
  return (
    `connected_clients:${normal}\r\n` +
    'cluster_connections:0\r\n' +
    `maxclients:${server.config.get('maxclients')}\r\n` +
    `client_recent_max_input_buffer:${maxIn}\r\n` +
    'client_recent_max_output_buffer:0\r\n' +
    `blocked_clients:${blocked}\r\n` +
    'tracking_clients:0\r\n' +
    `clients_in_timeout_table:${server.blocking.timedCount}\r\n`
  );
}

// ---- Memory ----

/** What a fresh server has allocated before any client or key (used_memory_startup). */
const STARTUP_BYTES = 876096;
/** Memory of the Lua engines of a fresh server (eval and functions). */
const LUA_EVAL_BYTES = 32768;
const LUA_FUNCTIONS_BYTES = 33792;
const FUNCTIONS_CACHE_BYTES = 200;
const TOTAL_SYSTEM_MEMORY = 8 * 1024 ** 3;
/** Allocations after startup that belong to neither clients nor keys (shared objects, buffers). */
const RUNTIME_MISC_BYTES = 73216;
/** Keys (and collection elements) measured exactly before sampling takes over. */
const SAMPLE = 64;

/** Sums f over at most SAMPLE items and scales to `count`. */
function sampled<T>(items: Iterable<T>, count: number, f: (x: T) => number): number {
  let total = 0;
  let n = 0;
  for (const x of items) {
    total += f(x);
    if (++n === SAMPLE) break;
  }
  return n === 0 ? 0 : Math.round((total / n) * count);
}

/**
 * The bytes of the keyspace: keys and values as MEMORY USAGE measures them
 * (memory-estimate.ts), from a sample of keys in each database so that INFO
 * stays cheap on a large dataset, plus the expires tables.
 */
export function datasetBytes(server: RedisServer): number {
  let total = 0;
  for (const db of server.dbs) {
    const n = db.dict.size;
    if (n === 0) continue;
    total += sampled(db.dict, n, ([k, v]) => keyMemoryUsage(server, k, v));
    total += 8 * n + DICT_ENTRY * db.expires.size + 8 * db.expires.size;
  }
  return total;
}

/** zmalloc_size of a client structure. */
const CLIENT_STRUCT_BYTES = 768;
/** The allocation of an empty query buffer (sdsempty). */
const EMPTY_QUERY_BUFFER_BYTES = 8;

/**
 * getClientMemoryUsage without the arguments of a running command: the
 * client structure, its reply buffer and unsent replies, its query
 * buffer's allocation and the commands queued by MULTI.
 */
export function clientMemoryBytes(c: Client): number {
  let multi = 0;
  for (const q of c.queue) for (const a of q.argv) multi += a.length + 8;
  const qb = c.queryBuffer;
  const queryBuffer = qb === null ? EMPTY_QUERY_BUFFER_BYTES : qb.allocatedBytes;
  const stream = c.role === 'replica' ? c.server.replication.primary.replicaOutput(c) : null;
  const output = stream === null ? c.output.memoryBytes : stream.bytes;
  return CLIENT_STRUCT_BYTES + c.output.bufSize + output + queryBuffer + multi + pubsubMemOverhead(c);
}

interface MemoryFigures {
  used: number;
  overhead: number;
  dataset: number;
  clientsNormal: number;
}

function memoryFigures(server: RedisServer): MemoryFigures {
  let clientsNormal = 0;
  for (const c of server.clients.values()) if (c.role !== 'replica') clientsNormal += clientMemoryBytes(c);
  let dictOverhead = 0;
  for (const db of server.dbs) dictOverhead += DICT_ENTRY * db.dict.size + 8 * db.dict.size;
  const overhead = STARTUP_BYTES + clientsNormal + dictOverhead;
  const used = STARTUP_BYTES + RUNTIME_MISC_BYTES + clientsNormal + datasetBytes(server);
  return { used, overhead, dataset: used - overhead, clientsNormal };
}

/** INFO memory's used_memory: an estimate that grows with the data and the clients. */
export function usedMemory(server: RedisServer): number {
  return memoryFigures(server).used;
}

function ratio(a: number, b: number): string {
  return printfFixed(b === 0 ? 0 : a / b, 2);
}

function memorySection(server: RedisServer): string {
  const { used, overhead, dataset, clientsNormal } = memoryFigures(server);
  const stats = server.stats;
  if (used > stats.peakMemoryBytes) stats.peakMemoryBytes = used;
  const peak = stats.peakMemoryBytes;
  const allocated = used + 640328;
  const active = Math.round(allocated * 1.14);
  const resident = active + 2670592;
  const rss = resident + 7786496;
  const netUsage = used - STARTUP_BYTES > 0 ? used - STARTUP_BYTES : 1;
  const maxmemory = server.config.get('maxmemory');
  const repl = server.replication.memory();
  return (
    `used_memory:${used}\r\n` +
    `used_memory_human:${bytesToHuman(used)}\r\n` +
    `used_memory_rss:${rss}\r\n` +
    `used_memory_rss_human:${bytesToHuman(rss)}\r\n` +
    `used_memory_peak:${peak}\r\n` +
    `used_memory_peak_human:${bytesToHuman(peak)}\r\n` +
    `used_memory_peak_perc:${printfFixed((used * 100) / peak, 2)}%\r\n` +
    `used_memory_overhead:${overhead}\r\n` +
    `used_memory_startup:${STARTUP_BYTES}\r\n` +
    `used_memory_dataset:${dataset}\r\n` +
    `used_memory_dataset_perc:${printfFixed((dataset * 100) / netUsage, 2)}%\r\n` +
    `allocator_allocated:${allocated}\r\n` +
    `allocator_active:${active}\r\n` +
    `allocator_resident:${resident}\r\n` +
    `total_system_memory:${TOTAL_SYSTEM_MEMORY}\r\n` +
    `total_system_memory_human:${bytesToHuman(TOTAL_SYSTEM_MEMORY)}\r\n` +
    `used_memory_lua:${LUA_EVAL_BYTES}\r\n` +
    `used_memory_vm_eval:${LUA_EVAL_BYTES}\r\n` +
    `used_memory_lua_human:${bytesToHuman(LUA_EVAL_BYTES)}\r\n` +
    'used_memory_scripts_eval:0\r\n' +
    'number_of_cached_scripts:0\r\n' +
    'number_of_functions:0\r\n' +
    'number_of_libraries:0\r\n' +
    `used_memory_vm_functions:${LUA_FUNCTIONS_BYTES}\r\n` +
    `used_memory_vm_total:${LUA_EVAL_BYTES + LUA_FUNCTIONS_BYTES}\r\n` +
    `used_memory_vm_total_human:${bytesToHuman(LUA_EVAL_BYTES + LUA_FUNCTIONS_BYTES)}\r\n` +
    `used_memory_functions:${FUNCTIONS_CACHE_BYTES}\r\n` +
    `used_memory_scripts:${FUNCTIONS_CACHE_BYTES}\r\n` +
    `used_memory_scripts_human:${bytesToHuman(FUNCTIONS_CACHE_BYTES)}\r\n` +
    `maxmemory:${BigInt.asIntN(64, BigInt(maxmemory))}\r\n` +
    `maxmemory_human:${bytesToHuman(Number(maxmemory))}\r\n` +
    `maxmemory_policy:${server.config.get('maxmemory-policy')}\r\n` +
    `allocator_frag_ratio:${ratio(active, allocated)}\r\n` +
    `allocator_frag_bytes:${active - allocated}\r\n` +
    `allocator_rss_ratio:${ratio(resident, active)}\r\n` +
    `allocator_rss_bytes:${resident - active}\r\n` +
    `rss_overhead_ratio:${ratio(rss, resident)}\r\n` +
    `rss_overhead_bytes:${rss - resident}\r\n` +
    `mem_fragmentation_ratio:${ratio(rss, used)}\r\n` +
    `mem_fragmentation_bytes:${rss - used}\r\n` +
    'mem_not_counted_for_evict:0\r\n' +
    `mem_replication_backlog:${repl.backlog}\r\n` +
    `mem_total_replication_buffers:${repl.total}\r\n` +
    `mem_clients_slaves:${repl.replicas}\r\n` +
    `mem_clients_normal:${clientsNormal}\r\n` +
    'mem_cluster_links:0\r\n' +
    'mem_aof_buffer:0\r\n' +
    'mem_allocator:jemalloc-5.3.0\r\n' +
    'active_defrag_running:0\r\n' +
    'lazyfree_pending_objects:0\r\n' +
    'lazyfreed_objects:0\r\n'
  );
}

// ---- Persistence ----

/** LASTSAVE and rdb_last_save_time: the start time until something is saved. */
export function lastSaveUnixS(server: RedisServer): number {
  return server.stats.persistence.lastSaveUnixS ?? seconds(server.startMs);
}

function persistenceSection(server: RedisServer): string {
  const p = server.stats.persistence;
  const now = seconds(server.nowMs);
  const aofOn = server.config.getBool('appendonly');
  let out =
    `loading:${p.loading && !p.asyncLoading ? 1 : 0}\r\n` +
    `async_loading:${p.asyncLoading ? 1 : 0}\r\n` +
    `current_cow_peak:${p.currentCowPeak}\r\n` +
    `current_cow_size:${p.currentCowSize}\r\n` +
    `current_cow_size_age:${p.currentCowSize === 0 ? 0 : Math.floor((server.nowMs * 1000 - p.currentCowSizeSinceUs) / 1e6)}\r\n` +
    `current_fork_perc:${printfFixed(p.currentForkPerc, 2)}\r\n` +
    `current_save_keys_processed:${p.currentSaveKeysProcessed}\r\n` +
    `current_save_keys_total:${p.currentSaveKeysTotal}\r\n` +
    `rdb_changes_since_last_save:${server.dirty}\r\n` +
    `rdb_bgsave_in_progress:${p.rdbBgsaveInProgress ? 1 : 0}\r\n` +
    `rdb_last_save_time:${lastSaveUnixS(server)}\r\n` +
    `rdb_last_bgsave_status:${p.rdbLastBgsaveOk ? 'ok' : 'err'}\r\n` +
    `rdb_last_bgsave_time_sec:${p.rdbLastBgsaveTimeS}\r\n` +
    `rdb_current_bgsave_time_sec:${p.rdbBgsaveInProgress ? now - p.rdbBgsaveStartUnixS : -1}\r\n` +
    `rdb_saves:${p.rdbSaves}\r\n` +
    `rdb_last_cow_size:${p.rdbLastCowSize}\r\n` +
    `rdb_last_load_keys_expired:${p.rdbLastLoadKeysExpired}\r\n` +
    `rdb_last_load_keys_loaded:${p.rdbLastLoadKeysLoaded}\r\n` +
    `aof_enabled:${aofOn ? 1 : 0}\r\n` +
    `aof_rewrite_in_progress:${p.aofRewriteInProgress ? 1 : 0}\r\n` +
    `aof_rewrite_scheduled:${p.aofRewriteScheduled ? 1 : 0}\r\n` +
    `aof_last_rewrite_time_sec:${p.aofLastRewriteTimeS}\r\n` +
    `aof_current_rewrite_time_sec:${p.aofRewriteInProgress ? now - p.aofRewriteStartUnixS : -1}\r\n` +
    `aof_last_bgrewrite_status:${p.aofLastBgrewriteOk ? 'ok' : 'err'}\r\n` +
    `aof_rewrites:${p.aofRewrites}\r\n` +
    `aof_rewrites_consecutive_failures:${p.aofRewritesConsecutiveFailures}\r\n` +
    `aof_last_write_status:${p.aofLastWriteOk ? 'ok' : 'err'}\r\n` +
    `aof_last_cow_size:${p.aofLastCowSize}\r\n` +
    'module_fork_in_progress:0\r\n' +
    'module_fork_last_cow_size:0\r\n';
  if (aofOn) {
    out +=
      `aof_current_size:${p.aofCurrentSize}\r\n` +
      `aof_base_size:${p.aofBaseSize}\r\n` +
      `aof_pending_rewrite:${p.aofRewriteScheduled ? 1 : 0}\r\n` +
      `aof_buffer_length:${p.aofBufferLength}\r\n` +
      `aof_pending_bio_fsync:${p.aofPendingBioFsync}\r\n` +
      `aof_delayed_fsync:${p.aofDelayedFsync}\r\n`;
  }
  return out;
}

// ---- Stats ----

function statsSection(server: RedisServer): string {
  const s = server.stats;
  const pubsub = server.pubsub;
  return (
    `total_connections_received:${s.totalConnectionsReceived}\r\n` +
    `total_commands_processed:${s.totalCommandsProcessed}\r\n` +
    `instantaneous_ops_per_sec:${s.opsPerSec(server.nowMs)}\r\n` +
    `total_net_input_bytes:${s.netInputBytes + s.netReplInputBytes}\r\n` +
    `total_net_output_bytes:${s.netOutputBytes + s.netReplOutputBytes}\r\n` +
    `total_net_repl_input_bytes:${s.netReplInputBytes}\r\n` +
    `total_net_repl_output_bytes:${s.netReplOutputBytes}\r\n` +
    'instantaneous_input_kbps:0.00\r\n' +
    'instantaneous_output_kbps:0.00\r\n' +
    'instantaneous_input_repl_kbps:0.00\r\n' +
    'instantaneous_output_repl_kbps:0.00\r\n' +
    `rejected_connections:${s.rejectedConnections}\r\n` +
    `sync_full:${s.syncFull}\r\n` +
    `sync_partial_ok:${s.syncPartialOk}\r\n` +
    `sync_partial_err:${s.syncPartialErr}\r\n` +
    `expired_keys:${s.expiredKeys}\r\n` +
    `expired_stale_perc:${printfFixed(s.expiredStalePerc * 100, 2)}\r\n` +
    `expired_time_cap_reached_count:${s.expiredTimeCapReachedCount}\r\n` +
    `expire_cycle_cpu_milliseconds:${s.expireCycleCpuMs}\r\n` +
    `evicted_keys:${s.evictedKeys}\r\n` +
    `evicted_clients:${s.evictedClients}\r\n` +
    `total_eviction_exceeded_time:${s.totalEvictionExceededTimeMs}\r\n` +
    'current_eviction_exceeded_time:0\r\n' +
    `keyspace_hits:${s.keyspaceHits}\r\n` +
    `keyspace_misses:${s.keyspaceMisses}\r\n` +
    `pubsub_channels:${pubsub.channels.size}\r\n` +
    `pubsub_patterns:${pubsub.patterns.size}\r\n` +
    `pubsubshard_channels:${pubsub.shardChannels.size}\r\n` +
    `latest_fork_usec:${s.latestForkUsec}\r\n` +
    `total_forks:${s.totalForks}\r\n` +
    'migrate_cached_sockets:0\r\n' +
    `slave_expires_tracked_keys:${server.replicaKeysWithExpire.size}\r\n` +
    'active_defrag_hits:0\r\n' +
    'active_defrag_misses:0\r\n' +
    'active_defrag_key_hits:0\r\n' +
    'active_defrag_key_misses:0\r\n' +
    'total_active_defrag_time:0\r\n' +
    'current_active_defrag_time:0\r\n' +
    'tracking_total_keys:0\r\n' +
    'tracking_total_items:0\r\n' +
    'tracking_total_prefixes:0\r\n' +
    `unexpected_error_replies:${s.unexpectedErrorReplies}\r\n` +
    `total_error_replies:${s.totalErrorReplies}\r\n` +
    `dump_payload_sanitizations:${s.dumpPayloadSanitizations}\r\n` +
    `total_reads_processed:${s.totalReadsProcessed}\r\n` +
    `total_writes_processed:${s.totalWritesProcessed}\r\n` +
    'io_threaded_reads_processed:0\r\n' +
    'io_threaded_writes_processed:0\r\n' +
    'reply_buffer_shrinks:0\r\n' +
    'reply_buffer_expands:0\r\n'
  );
}

// ---- Replication ----

function replicationSection(server: RedisServer): string {
  return (
    'role:master\r\n' +
    'connected_slaves:0\r\n' +
    'master_failover_state:no-failover\r\n' +
    `master_replid:${server.replication.replId}\r\n` +
    'master_replid2:0000000000000000000000000000000000000000\r\n' +
    'master_repl_offset:0\r\n' +
    'second_repl_offset:-1\r\n' +
    'repl_backlog_active:0\r\n' +
    `repl_backlog_size:${server.config.get('repl-backlog-size')}\r\n` +
    'repl_backlog_first_byte_offset:0\r\n' +
    'repl_backlog_histlen:0\r\n'
  );
}

// ---- CPU ----

/** "%ld.%06ld" of a number of microseconds. */
function cpuTime(us: number): string {
  const whole = Math.floor(us / 1e6);
  return `${whole}.${String(Math.floor(us - whole * 1e6)).padStart(6, '0')}`;
}

/**
 * CPU time modelled from the work done: a small cost per second of uptime
 * (serverCron) plus a few microseconds per command.
 */
function cpuSection(server: RedisServer): string {
  const uptimeS = (server.nowMs - server.startMs) / 1000;
  const commands = server.stats.totalCommandsProcessed;
  const sys = Math.round(uptimeS * 400 + commands * 3);
  const user = Math.round(uptimeS * 350 + commands * 4);
  return (
    `used_cpu_sys:${cpuTime(sys)}\r\n` +
    `used_cpu_user:${cpuTime(user)}\r\n` +
    'used_cpu_sys_children:0.000000\r\n' +
    'used_cpu_user_children:0.000000\r\n' +
    `used_cpu_sys_main_thread:${cpuTime(sys)}\r\n` +
    `used_cpu_user_main_thread:${cpuTime(user)}\r\n`
  );
}

// ---- Commandstats, Errorstats, Latencystats ----

function commandStatsSection(server: RedisServer): string {
  let out = '';
  for (const cmd of server.commands.all()) {
    if (cmd.calls === 0 && cmd.failedCalls === 0 && cmd.rejectedCalls === 0) continue;
    const perCall = cmd.calls === 0 ? 0 : Math.fround(Math.fround(cmd.usec) / cmd.calls);
    out +=
      `cmdstat_${safeInfoName(cmd.name)}:calls=${cmd.calls},usec=${cmd.usec},usec_per_call=${printfFixed(perCall, 2)}` +
      `,rejected_calls=${cmd.rejectedCalls},failed_calls=${cmd.failedCalls}\r\n`;
  }
  return out;
}

function errorStatsSection(server: RedisServer): string {
  const codes = [...server.stats.errors.keys()].sort();
  let out = '';
  for (const code of codes) out += `errorstat_${safeInfoName(code)}:count=${server.stats.errors.get(code)}\r\n`;
  return out;
}

/**
 * Per-command latency percentiles, from each command's histogram of run
 * times in nanoseconds (fillPercentileDistributionLatencies). A run that
 * takes no time counts as the histogram's 1 ns floor.
 */
function latencyStatsSection(server: RedisServer): string {
  if (!server.config.getBool('latency-tracking')) return '';
  const setting = server.config.get('latency-tracking-info-percentiles');
  const percentiles = setting === '' ? [] : setting.split(' ');
  let out = '';
  for (const cmd of server.commands.all()) {
    const h = cmd.latencyHistogram;
    if (h === null) continue;
    out += `latency_percentiles_usec_${safeInfoName(cmd.name)}:${percentiles.map((p) => `p${p}=${printfFixed(h.valueAtPercentile(Number(p)) / 1000, 3)}`).join(',')}\r\n`;
  }
  return out;
}

// ---- Keyspace ----

function keyspaceSection(server: RedisServer): string {
  let out = '';
  for (const db of server.dbs) {
    const keys = db.dict.size;
    const expires = db.expires.size;
    if (keys !== 0 || expires !== 0) out += `db${db.id}:keys=${keys},expires=${expires},avg_ttl=${db.avgTtlMs}\r\n`;
  }
  return out;
}
