import { checkRdb } from '../persistence/check/rdb/check.js';
import { registerRdbCheck } from '../persistence/snapshots.js';
import { loadAofAtStart } from '../persistence/aof-replay.js';
import { loadRdbIntoServer } from '../persistence/rdb-load.js';
import { registerCrc64LongStep } from '../persistence/rdb/crc64.js';
import { wasmCrc64 } from '../persistence/rdb/crc64-wasm.js';
import { registerStartLoaders } from '../persistence/start-loading.js';
import { bitmapCommands } from './bitmap.js';
import { commandDocsCommands } from './command-docs.js';
import { debugCommands } from './debug.js';
import { dumpCommands } from './dump.js';
import { latencyReportCommands } from './latency-report.js';
import { lolwutCommands } from './lolwut.js';
import { memoryCommands } from './memory.js';
import { moduleCommands } from './module.js';
import { objectCommands } from './object.js';
import { ON_DEMAND_COMMANDS, registerOnDemandHandlers } from './on-demand.js';
import { sortCommands } from './sort.js';
import { hashCommands } from './hash.js';
import { listCommands } from './list.js';
import { setCommands } from './set.js';
import { sortedSetCommands } from './sorted-set.js';
import { sortedSetBlockingCommands } from './sorted-set-blocking.js';
import { listBlockingCommands } from './list-blocking.js';
import { latencyCommands } from './latency.js';
import { slowlogCommands } from './slowlog.js';
import { replicationLinkCommands } from './replication-links.js';
import { ReplicationReplica } from '../replication/replica.js';
import { registerBacklog, registerReplicaPart } from '../replication/state.js';
import { ReplicationBuffer } from '../replication/backlog.js';
import { Synchronization } from '../replication/primary-sync.js';
import { registerFailover, registerSynchronization } from '../replication/primary.js';
import { Failover } from '../replication/primary-failover.js';
import { lcs } from './string-lcs.js';
import { hyperLogLogCommands } from './hyperloglog.js';
import { copyCommands } from './generic-copy.js';
import { spop, srandmember } from './set-random.js';
import { sscan } from './set-scan.js';
import { hrandfield } from './hash-random.js';
import { hscan } from './hash-scan.js';
import { sortedSetRandomCommands } from './sorted-set-random.js';
import { sortedSetSetOpCommands } from './sorted-set-setops.js';
import { scriptingCommands } from './scripting.js';
import { commandCommands } from './command.js';
import { configRewriteCommands } from './config-rewrite.js';
import type { Handler } from '../server/command-table.js';

/**
 * The code kept apart (see on-demand.ts): the handlers of the commands a
 * first session seldom types or types later, redis-check-rdb's check that a server
 * runs on a dump.rdb it cannot load, the replica side of replication,
 * the primary's synchronization of replicas and the replication backlog.
 * Importing this module registers them for every server, present and
 * future.
 */
const handlers: Record<string, Handler> = {
  ...bitmapCommands,
  ...commandDocsCommands,
  ...debugCommands,
  ...dumpCommands,
  ...latencyReportCommands,
  ...lolwutCommands,
  ...memoryCommands,
  ...moduleCommands,
  ...objectCommands,
  ...sortCommands,
  ...replicationLinkCommands,
  ...copyCommands,
  ...sortedSetRandomCommands,
  ...sortedSetSetOpCommands,
  ...scriptingCommands,
  ...commandCommands,
  ...hyperLogLogCommands,
  ...configRewriteCommands,
  ...hashCommands,
  ...listCommands,
  ...setCommands,
  ...sortedSetCommands,
  ...sortedSetBlockingCommands,
  ...listBlockingCommands,
  ...latencyCommands,
  ...slowlogCommands,
  lcs,
  spop,
  srandmember,
  sscan,
  hrandfield,
  hscan,
};

for (const name of ON_DEMAND_COMMANDS) if (handlers[name] === undefined) throw new Error(`no handler for on-demand command ${name}`);
for (const name of Object.keys(handlers)) if (!(ON_DEMAND_COMMANDS as readonly string[]).includes(name)) throw new Error(`${name} is not listed in ON_DEMAND_COMMANDS`);

registerOnDemandHandlers(handlers);
registerRdbCheck(checkRdb);
registerStartLoaders({ loadRdbIntoServer, loadAofAtStart });
registerReplicaPart((s) => new ReplicationReplica(s));
registerBacklog((offset, size) => new ReplicationBuffer(offset, size));
registerSynchronization((p) => new Synchronization(p));
registerFailover((s) => new Failover(s));
// Long checksums (a full sync's RDB, a large file loaded at start) in WebAssembly from now on.
registerCrc64LongStep(wasmCrc64);
