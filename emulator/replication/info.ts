import type { Reply } from '../resp/reply.js';
import type { ReplicationState } from './state.js';
import { cText, type ReplicaState } from './primary-replica-link.js';

/**
 * What replication shows of itself: INFO's Replication section and
 * MEMORY's replication figures (src/server.c genRedisInfoString,
 * src/object.c getMemoryOverheadData), and ROLE (src/replication.c).
 */

/** replstateToString: both waits read "wait_bgsave"; a client done with its RDB-only transfer is not listed. */
export function stateText(s: ReplicaState | null): string {
  switch (s) {
    case 'wait_bgsave_start':
    case 'wait_bgsave_end':
      return 'wait_bgsave';
    case 'send_bulk':
      return 'send_bulk';
    case 'online':
      return 'online';
    default:
      return '';
  }
}

/** The body of INFO replication. */
export function replicationInfo(s: ReplicationState): string {
  const server = s.server;
  const cfg = server.config;
  const p = s.primary;
  let out = `role:${s.masterHost === null ? 'master' : 'slave'}\r\n`;
  if (s.masterHost !== null && s.replica !== null) out += s.replica.infoLines();
  out += `connected_slaves:${p.replicas.length}\r\n`;
  if (cfg.getNumber('min-replicas-to-write') !== 0 && cfg.getNumber('min-replicas-max-lag') !== 0) {
    out += `min_slaves_good_slaves:${p.goodReplicas}\r\n`;
  }
  const nowS = Math.floor(server.nowMs / 1000);
  let id = 0;
  for (const c of p.replicas) {
    const r = p.link(c);
    const state = stateText(r.state);
    if (state === '') continue;
    const lag = r.state === 'online' ? nowS - r.ackTimeS : 0;
    out += `slave${id}:ip=${cText(r.ip)},port=${r.listeningPort},state=${state},offset=${r.ackOffset},lag=${lag}\r\n`;
    id++;
  }
  const b = s.buffer;
  out +=
    'master_failover_state:no-failover\r\n' +
    `master_replid:${s.replId}\r\n` +
    `master_replid2:${s.replId2}\r\n` +
    `master_repl_offset:${s.masterReplOffset}\r\n` +
    `second_repl_offset:${s.secondReplOffset}\r\n` +
    `repl_backlog_active:${b !== null ? 1 : 0}\r\n` +
    `repl_backlog_size:${cfg.get('repl-backlog-size')}\r\n` +
    `repl_backlog_first_byte_offset:${b !== null ? b.firstByteOffset : 0}\r\n` +
    `repl_backlog_histlen:${b !== null ? b.histlen : 0}\r\n`;
  return out;
}

/** sizeof(raxNode), and an index entry's pointer: the backlog's index, roughly. */
const RAX_NODE_BYTES = 4;
const RAX_ENTRY_BYTES = 8;

/**
 * The replication buffer split as INFO memory shows it: what exceeds the
 * backlog's size counts as the replicas' while there are replicas; the
 * rest, with the block index, as the backlog's.
 */
export function replicationMemory(s: ReplicationState): { backlog: number; replicas: number; total: number } {
  const total = s.buffer?.memoryBytes ?? 0;
  const size = s.backlogSize();
  let backlog: number;
  let replicas = 0;
  if (s.primary.replicas.length !== 0 && total > size) {
    replicas = total - size;
    backlog = size;
  } else {
    backlog = total;
  }
  if (s.buffer !== null) backlog += (1 + s.buffer.indexEntries) * RAX_NODE_BYTES + s.buffer.indexEntries * RAX_ENTRY_BYTES;
  return { backlog, replicas, total };
}

/** ROLE on a primary: its offset and its online replicas' address, port and acknowledged offset. */
export function roleReply(s: ReplicationState): Reply {
  if (s.masterHost !== null && s.replica !== null) return s.replica.roleReply();
  const p = s.primary;
  const replicas: Reply[] = [];
  for (const c of p.replicas) {
    const r = p.link(c);
    if (r.state !== 'online') continue;
    replicas.push([cText(r.ip), String(r.listeningPort), String(r.ackOffset)]);
  }
  return ['master', s.masterReplOffset, replicas];
}
