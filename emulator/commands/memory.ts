import { DoubleReply, MapReply, OK, VerbatimReply, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import { infoText } from '../server/info.js';
import type { RedisServer } from '../server/server.js';
import { DEFAULT_SAMPLES, databaseOverhead, keyMemoryUsage } from '../server/memory-estimate.js';
import { int64Arg, opt } from './args.js';
import { helpReply } from './command-help.js';
import { NOT_INTEGER, SYNTAX_ERROR } from '../server/errors.js';
import type { Handler } from '../server/command-table.js';

/**
 * MEMORY USAGE | STATS | DOCTOR | MALLOC-STATS | PURGE | HELP
 * (src/object.c memoryCommand). The process-wide figures are the ones INFO
 * memory shows, so that the two always agree; the per-key figures come
 * from memory-estimate.ts.
 */

/** MEMORY USAGE key [SAMPLES count]: SAMPLES 0 samples everything. */
function usage(c: Client, argv: string[]): Reply {
  let samples = DEFAULT_SAMPLES;
  for (let j = 3; j < argv.length; j++) {
    if (opt(argv[j]!) === 'samples' && j + 1 < argv.length) {
      const n = int64Arg(argv[++j]!);
      if (n === null) return NOT_INTEGER;
      if (n < 0) return SYNTAX_ERROR;
      samples = n === 0 ? Infinity : Number(n);
    } else {
      return SYNTAX_ERROR;
    }
  }
  // The dictionary itself, as Redis reads it: an expired key still counts.
  const v = c.db.dict.get(argv[2]!);
  if (v === undefined) return null;
  return keyMemoryUsage(c.server, argv[2]!, v, samples);
}

/** The numeric fields of INFO memory. */
function memoryInfo(server: RedisServer): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of infoText(server, ['memory']).split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const n = Number(line.slice(colon + 1));
    if (Number.isFinite(n)) out.set(line.slice(0, colon), n);
  }
  return out;
}

/** A C float division of two byte counts, as getMemoryOverheadData computes its ratios. */
function floatRatio(a: number, b: number, scale = 1): number {
  return Math.fround(Math.fround(Math.fround(a) * scale) / Math.fround(b));
}

/** What getMemoryOverheadData gathers. */
interface Overhead {
  peak: number;
  total: number;
  startup: number;
  replBacklog: number;
  clientsReplicas: number;
  clientsNormal: number;
  clusterLinks: number;
  aofBuffer: number;
  luaCaches: number;
  functionsCaches: number;
  dbs: Array<{ id: number; main: number; expires: number }>;
  overheadTotal: number;
  keys: number;
  bytesPerKey: number;
  dataset: number;
  datasetPercent: number;
  peakPercent: number;
  allocated: number;
  active: number;
  resident: number;
  rss: number;
}

function overheadData(server: RedisServer): Overhead {
  const info = memoryInfo(server);
  const get = (name: string): number => info.get(name) ?? 0;
  const total = get('used_memory');
  const o: Overhead = {
    peak: Math.max(get('used_memory_peak'), total),
    total,
    startup: get('used_memory_startup'),
    replBacklog: get('mem_replication_backlog'),
    clientsReplicas: get('mem_clients_slaves'),
    clientsNormal: get('mem_clients_normal'),
    clusterLinks: get('mem_cluster_links'),
    aofBuffer: get('mem_aof_buffer'),
    luaCaches: get('used_memory_scripts_eval'),
    functionsCaches: get('used_memory_functions'),
    dbs: [],
    overheadTotal: 0,
    keys: 0,
    bytesPerKey: 0,
    dataset: 0,
    datasetPercent: 0,
    peakPercent: 0,
    allocated: get('allocator_allocated'),
    active: get('allocator_active'),
    resident: get('allocator_resident'),
    rss: get('used_memory_rss'),
  };
  let overhead = o.startup + o.replBacklog + o.clientsReplicas + o.clientsNormal + o.clusterLinks + o.aofBuffer + o.luaCaches + o.functionsCaches;
  for (const db of server.dbs) {
    if (db.dict.size === 0) continue;
    o.keys += db.dict.size;
    const { main, expires } = databaseOverhead(db);
    o.dbs.push({ id: db.id, main, expires });
    overhead += main + expires;
  }
  o.overheadTotal = overhead;
  o.dataset = Math.max(0, total - overhead);
  o.peakPercent = floatRatio(total, o.peak, 100);
  const net = total > o.startup ? total - o.startup : 1;
  o.datasetPercent = floatRatio(o.dataset, net, 100);
  o.bytesPerKey = o.keys === 0 ? 0 : Math.floor(net / o.keys);
  return o;
}

function stats(c: Client): Reply {
  const o = overheadData(c.server);
  const out: Reply[] = [
    'peak.allocated', o.peak,
    'total.allocated', o.total,
    'startup.allocated', o.startup,
    'replication.backlog', o.replBacklog,
    'clients.slaves', o.clientsReplicas,
    'clients.normal', o.clientsNormal,
    'cluster.links', o.clusterLinks,
    'aof.buffer', o.aofBuffer,
    'lua.caches', o.luaCaches,
    'functions.caches', o.functionsCaches,
  ];
  for (const db of o.dbs) {
    out.push(
      `db.${db.id}`,
      new MapReply(['overhead.hashtable.main', db.main, 'overhead.hashtable.expires', db.expires, 'overhead.hashtable.slot-to-keys', 0]),
    );
  }
  out.push(
    'overhead.total', o.overheadTotal,
    'keys.count', o.keys,
    'keys.bytes-per-key', o.bytesPerKey,
    'dataset.bytes', o.dataset,
    'dataset.percentage', new DoubleReply(o.datasetPercent),
    'peak.percentage', new DoubleReply(o.peakPercent),
    'allocator.allocated', o.allocated,
    'allocator.active', o.active,
    'allocator.resident', o.resident,
    'allocator-fragmentation.ratio', new DoubleReply(floatRatio(o.active, o.allocated)),
    'allocator-fragmentation.bytes', o.active - o.allocated,
    'allocator-rss.ratio', new DoubleReply(floatRatio(o.resident, o.active)),
    'allocator-rss.bytes', o.resident - o.active,
    'rss-overhead.ratio', new DoubleReply(floatRatio(o.rss, o.resident)),
    'rss-overhead.bytes', o.rss - o.resident,
    'fragmentation', new DoubleReply(floatRatio(o.rss, o.total)),
    'fragmentation.bytes', o.rss - o.total,
  );
  return new MapReply(out);
}

// MEMORY DOCTOR's report (getMemoryDoctorReport), in Redis's words.
const DOCTOR_EMPTY =
  "Hi Sam, this instance is empty or is using very little memory, my issues detector can't be used in these conditions. " +
  'Please, leave for your mission on Earth and fill it with some data. ' +
  'The new Sam and I will be back to our programming as soon as I finished rebooting.\n';
const DOCTOR_FINE = "Hi Sam, I can't find any memory issue in your instance. I can only account for what occurs on this base.\n";
const DOCTOR_ISSUES: Record<string, string> = {
  peak:
    ' * Peak memory: In the past this instance used more than 150% the memory that is currently using. The allocator is normally not able to release memory after a peak, so you can expect to see a big fragmentation ratio, however this is actually harmless and is only due to the memory peak, and if the Redis instance Resident Set Size (RSS) is currently bigger than expected, the memory will be used as soon as you fill the Redis instance with more data. If the memory peak was only occasional and you want to try to reclaim memory, please try the MEMORY PURGE command, otherwise the only other option is to shutdown and restart the instance.\n\n',
  frag:
    ' * High total RSS: This instance has a memory fragmentation and RSS overhead greater than 1.4 (this means that the Resident Set Size of the Redis process is much larger than the sum of the logical allocations Redis performed). This problem is usually due either to a large peak memory (check if there is a peak memory entry above in the report) or may result from a workload that causes the allocator to fragment memory a lot. If the problem is a large peak memory, then there is no issue. Otherwise, make sure you are using the Jemalloc allocator and not the default libc malloc. Note: The currently used allocator is "jemalloc-5.3.0".\n\n',
  allocFrag:
    " * High allocator fragmentation: This instance has an allocator external fragmentation greater than 1.1. This problem is usually due either to a large peak memory (check if there is a peak memory entry above in the report) or may result from a workload that causes the allocator to fragment memory a lot. You can try enabling 'activedefrag' config option.\n\n",
  allocRss:
    ' * High allocator RSS overhead: This instance has an RSS memory overhead is greater than 1.1 (this means that the Resident Set Size of the allocator is much larger than the sum what the allocator actually holds). This problem is usually due to a large peak memory (check if there is a peak memory entry above in the report), you can try the MEMORY PURGE command to reclaim it.\n\n',
  procRss:
    ' * High process RSS overhead: This instance has non-allocator RSS memory overhead is greater than 1.1 (this means that the Resident Set Size of the Redis process is much larger than the RSS the allocator holds). This problem may be due to Lua scripts or Modules.\n\n',
  clientBuf:
    ' * Big client buffers: The clients output buffers in this instance are greater than 200K per client (on average). This may result from different causes, like Pub/Sub clients subscribed to channels bot not receiving data fast enough, so that data piles on the Redis instance output buffer, or clients sending commands with large replies or very large sequences of commands in the same pipeline. Please use the CLIENT LIST command in order to investigate the issue if it causes problems in your instance, or to understand better why certain clients are using a big amount of memory.\n\n',
};
const TEN_MB = 10 << 20;

function doctor(c: Client): Reply {
  const o = overheadData(c.server);
  if (o.total < 5 * 1024 * 1024) return new VerbatimReply(DOCTOR_EMPTY);
  const found: string[] = [];
  if (Math.fround(Math.fround(o.peak) / Math.fround(o.total)) > 1.5) found.push('peak');
  if (floatRatio(o.rss, o.total) > 1.4 && o.rss - o.total > TEN_MB) found.push('frag');
  if (floatRatio(o.active, o.allocated) > 1.1 && o.active - o.allocated > TEN_MB) found.push('allocFrag');
  if (floatRatio(o.resident, o.active) > 1.1 && o.resident - o.active > TEN_MB) found.push('allocRss');
  if (floatRatio(o.rss, o.resident) > 1.1 && o.rss - o.resident > TEN_MB) found.push('procRss');
  let clients = 0;
  for (const cl of c.server.clients.values()) if (cl.role !== 'replica') clients++;
  if (clients > 0 && Math.floor(o.clientsNormal / clients) > 1024 * 200) found.push('clientBuf');
  if (found.length === 0) return new VerbatimReply(DOCTOR_FINE);
  let text = 'Sam, I detected a few issues in this Redis instance memory implants:\n\n';
  for (const f of found) text += DOCTOR_ISSUES[f];
  return new VerbatimReply(text + "I'm here to keep you safe, Sam. I want to help you.\n");
}

/** The allocator's statistics: jemalloc prints pages of them; this is a summary in the same frame. */
function mallocStats(c: Client): Reply {
  const info = memoryInfo(c.server);
  const n = (name: string): number => info.get(name) ?? 0;
  return new VerbatimReply(
    '___ Begin jemalloc statistics ___\n' +
      'Version: "5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c"\n' +
      `Allocated: ${n('allocator_allocated')}, active: ${n('allocator_active')}, resident: ${n('allocator_resident')}\n` +
      '--- End jemalloc statistics ---\n',
  );
}

function purge(): Reply {
  return OK;
}

const HELP_LINES = [
  'DOCTOR',
  '    Describe problems with the way the server uses memory, if it sees any.',
  'MALLOC-STATS',
  "    Show the memory allocator's own statistics.",
  'PURGE',
  '    Ask the allocator to give unused pages back to the system.',
  'STATS',
  '    Show where the server\'s memory goes: clients, buffers, key tables, data.',
  'USAGE <key> [SAMPLES <count>]',
  '    Estimate the bytes <key> and its value take. Collections are estimated',
  '    from <count> of their elements (5 by default; 0 means all of them).',
];

function help(_c: Client, argv: string[]): Reply {
  return helpReply(argv[0]!, HELP_LINES);
}

export const memoryCommands: Record<string, Handler> = {
  'memory|usage': usage,
  'memory|stats': stats,
  'memory|doctor': doctor,
  'memory|malloc-stats': mallocStats,
  'memory|purge': purge,
  'memory|help': help,
};
