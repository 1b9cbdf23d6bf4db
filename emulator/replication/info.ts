import type { Reply } from '../resp/reply.js';
import type { ReplicationState } from './state.js';
import { cString } from '../numbers/c-string.js';
import { type ReplicaState } from './primary-replica-link.js';

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
  if (s.masterHost !== null) out += replicaInfoLines(s);
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
    out += `slave${id}:ip=${cString(r.ip)},port=${r.listeningPort},state=${state},offset=${r.ackOffset},lag=${lag}\r\n`;
    id++;
  }
  const b = s.buffer;
  out +=
    `master_failover_state:${p.failoverState}\r\n` +
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

/** INFO replication's lines after role:slave, on a replica. */
function replicaInfoLines(s: ReplicationState): string {
  const r = s.replica;
  const cfg = s.server.config;
  const nowS = s.nowS;
  const off = r.offsets();
  let out =
    `master_host:${s.masterHost}\r\n` +
    `master_port:${s.masterPort}\r\n` +
    `master_link_status:${r.state === 'connected' ? 'up' : 'down'}\r\n` +
    `master_last_io_seconds_ago:${r.master !== null ? nowS - r.master.lastInteractionS : -1}\r\n` +
    `master_sync_in_progress:${r.state === 'transfer' ? 1 : 0}\r\n` +
    `slave_read_repl_offset:${off.read}\r\n` +
    `slave_repl_offset:${off.applied}\r\n`;
  const t = r.transfer;
  if (r.state === 'transfer' && t !== null) {
    // The size is -1 until the header is read, 0 for a transfer that ends with a mark.
    const perc = t.size !== 0 ? (t.read / t.size) * 100 : 0;
    out +=
      `master_sync_total_bytes:${t.size}\r\n` +
      `master_sync_read_bytes:${t.read}\r\n` +
      `master_sync_left_bytes:${t.size - t.read}\r\n` +
      `master_sync_perc:${perc.toFixed(2)}\r\n` +
      `master_sync_last_io_seconds_ago:${nowS - r.transferLastIoS}\r\n`;
  }
  if (r.state !== 'connected') out += `master_link_down_since_seconds:${r.downSinceS !== 0 ? nowS - r.downSinceS : -1}\r\n`;
  out +=
    `slave_priority:${cfg.getNumber('replica-priority')}\r\n` +
    `slave_read_only:${cfg.getBool('replica-read-only') ? 1 : 0}\r\n` +
    `replica_announced:${cfg.getBool('replica-announced') ? 1 : 0}\r\n`;
  return out;
}

/** ROLE on a replica: its primary, the link's state, the offset applied (-1 without a connected primary). */
function replicaRoleReply(s: ReplicationState): Reply {
  const r = s.replica;
  let state: string;
  if (r.inHandshake) state = 'handshake';
  else if (r.state === 'none' || r.state === 'connect' || r.state === 'connecting' || r.state === 'connected') state = r.state;
  else state = 'sync';
  return ['slave', s.masterHost!, s.masterPort, state, r.master !== null ? r.master.reploff : -1];
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
  if (s.masterHost !== null) return replicaRoleReply(s);
  const p = s.primary;
  const replicas: Reply[] = [];
  for (const c of p.replicas) {
    const r = p.link(c);
    if (r.state !== 'online') continue;
    replicas.push([cString(r.ip), String(r.listeningPort), String(r.ackOffset)]);
  }
  return ['master', s.masterReplOffset, replicas];
}
