/**
 * Sentinel's failover (src/sentinel.c): the objective down state agreed
 * with the other sentinels, the election of a leader for an epoch, and
 * the leader's steps: pick a replica, promote it with SLAVEOF NO ONE,
 * point the other replicas at it `parallel-syncs` at a time, then switch
 * the master's address. The functions take the Sentinel whose state they
 * change and are called from its timer and from its INFO replies.
 */
import type { Reply } from '../resp/reply.js';
import { gmtime, MONTH_ABBREVIATIONS, WEEKDAY_ABBREVIATIONS } from '../numbers/gmtime.js';
import type { Instance, MonitoredMaster, Sentinel } from './sentinel.js';

/** SENTINEL_MAX_DESYNC; the other periods are the sentinel's (SENTINEL DEBUG changes them). */
const MAX_DESYNC_MS = 1000;

function random(s: Sentinel, below: number): number {
  return s.p.kernel.random.nextU32() % below;
}

/** sentinelCheckObjectivelyDown: our sdown plus the sentinels that answered it is down reach the quorum. */
export function checkObjectivelyDown(s: Sentinel, m: MonitoredMaster): void {
  let quorum = 0;
  let odown = false;
  if (m.sdown) {
    quorum = 1;
    for (const ri of m.sentinels.values()) if (ri.masterDown) quorum++;
    if (quorum >= m.config.quorum) odown = true;
  }
  if (odown) {
    if (!m.odown) {
      s.event('warning', '+odown', m, `#quorum ${quorum}/${m.config.quorum}`);
      m.odown = true;
      m.odownSinceMs = s.nowMs();
    }
  } else if (m.odown) {
    s.event('warning', '-odown', m, '');
    m.odown = false;
  }
}

/**
 * sentinelAskMasterStateToOtherSentinels: while the master is down for
 * us, ask every sentinel each second (at once when forced) whether it is
 * for them too, asking for their vote once a failover of ours started.
 */
export function askMasterStateToOtherSentinels(s: Sentinel, m: MonitoredMaster, forced: boolean): void {
  const now = s.nowMs();
  for (const ri of m.sentinels.values()) {
    if (now - ri.lastMasterDownReplyMs > s.periods.askMs * 5) {
      ri.masterDown = false;
      ri.leader = null;
    }
    if (!m.sdown || s.disconnected(ri) || ri.cc === null) continue;
    if (!forced && now - ri.lastMasterDownReplyMs < s.periods.askMs) continue;
    const runId = m.failoverState !== 'none' ? s.myid : '*';
    ri.cc.send(['SENTINEL', 'is-master-down-by-addr', m.config.ip, String(m.config.port), String(s.config.currentEpoch), runId], (r) => receiveIsMasterDown(s, ri, r));
  }
}

/** sentinelReceiveIsMasterDownReply: [down state, leader or "*", leader epoch]. */
function receiveIsMasterDown(s: Sentinel, ri: Instance, r: Reply): void {
  if (!Array.isArray(r) || r.length !== 3 || typeof r[0] !== 'number' || typeof r[1] !== 'string' || typeof r[2] !== 'number') return;
  ri.lastMasterDownReplyMs = s.nowMs();
  ri.masterDown = r[0] === 1;
  if (r[1] !== '*') {
    if (ri.leaderEpoch !== r[2]) s.p.log(`${ri.name} voted for ${r[1]} ${r[2]}`, 'warning');
    ri.leader = r[1];
    ri.leaderEpoch = r[2];
  }
}

/**
 * sentinelVoteLeader: a newer epoch is adopted, and the first sentinel to
 * ask in an epoch gets this sentinel's vote for it. Returns the vote and
 * its epoch.
 */
export function voteLeader(s: Sentinel, m: MonitoredMaster, reqEpoch: number, reqRunId: string): { leader: string | null; epoch: number } {
  if (reqEpoch > s.config.currentEpoch) {
    s.config.currentEpoch = reqEpoch;
    s.flushConfig();
    s.masterEvent('warning', '+new-epoch', m, String(reqEpoch));
  }
  if (m.leaderEpoch < reqEpoch && s.config.currentEpoch <= reqEpoch) {
    m.leader = reqRunId;
    m.leaderEpoch = s.config.currentEpoch;
    s.flushConfig();
    s.masterEvent('warning', '+vote-for-leader', m, `${m.leader} ${m.leaderEpoch}`);
    // Having voted for another, wait before trying ourselves, so sentinels do not all start at once.
    if (m.leader.toLowerCase() !== s.myid.toLowerCase()) m.failoverStartMs = s.nowMs() + random(s, MAX_DESYNC_MS);
  }
  return { leader: m.leader, epoch: m.leaderEpoch };
}

/**
 * sentinelGetLeader: the sentinel with most votes in this epoch, our own
 * vote going to it (or to us when nobody has one), if it has a majority
 * of all the sentinels and at least the quorum.
 */
function getLeader(s: Sentinel, m: MonitoredMaster, epoch: number): string | null {
  const counters = new Map<string, number>();
  const voters = m.sentinels.size + 1;
  for (const ri of m.sentinels.values()) {
    if (ri.leader !== null && ri.leaderEpoch === s.config.currentEpoch) counters.set(ri.leader, (counters.get(ri.leader) ?? 0) + 1);
  }
  let winner: string | null = null;
  let maxVotes = 0;
  for (const [runId, votes] of counters) {
    if (votes > maxVotes) {
      maxVotes = votes;
      winner = runId;
    }
  }
  const mine = voteLeader(s, m, epoch, winner ?? s.myid);
  if (mine.leader !== null && mine.epoch === epoch) {
    const votes = (counters.get(mine.leader) ?? 0) + 1;
    counters.set(mine.leader, votes);
    if (votes > maxVotes) {
      maxVotes = votes;
      winner = mine.leader;
    }
  }
  if (winner !== null && (maxVotes < Math.floor(voters / 2) + 1 || maxVotes < m.config.quorum)) winner = null;
  return winner;
}

/** sentinelStartFailoverIfNeeded: an objectively down master, no failover running, none tried for twice the failover timeout. */
export function startFailoverIfNeeded(s: Sentinel, m: MonitoredMaster): boolean {
  if (!m.odown || m.failoverState !== 'none') return false;
  const now = s.nowMs();
  if (now - m.failoverStartMs < m.config.failoverTimeoutMs * 2) {
    if (m.failoverDelayLogged !== m.failoverStartMs) {
      m.failoverDelayLogged = m.failoverStartMs;
      s.p.log(`Next failover delay: I will not start a failover before ${ctime(m.failoverStartMs + m.config.failoverTimeoutMs * 2)}`, 'warning');
    }
    return false;
  }
  startFailover(s, m);
  return true;
}

/** sentinelStartFailover: a new epoch, and an election to win in it (unless forced). */
export function startFailover(s: Sentinel, m: MonitoredMaster): void {
  const now = s.nowMs();
  m.failoverState = 'wait_start';
  m.failoverEpoch = ++s.config.currentEpoch;
  s.masterEvent('warning', '+new-epoch', m, String(s.config.currentEpoch));
  s.event('warning', '+try-failover', m, '');
  m.failoverStartMs = now + random(s, MAX_DESYNC_MS);
  m.failoverStateChangeMs = now;
}

/** ctime_r's text in UTC without its newline: "Thu Jan  1 00:02:17 2026". */
function ctime(ms: number): string {
  const t = gmtime(Math.floor(ms / 1000));
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${WEEKDAY_ABBREVIATIONS[t.weekday]} ${MONTH_ABBREVIATIONS[t.month]} ${String(t.day).padStart(2, ' ')} ${two(t.hour)}:${two(t.minute)}:${two(t.second)} ${t.year}`;
}

function abortFailover(m: MonitoredMaster, now: number): void {
  m.failoverState = 'none';
  m.forceFailover = false;
  m.failoverStateChangeMs = now;
  if (m.promotedReplica !== null) m.promotedReplica.promoted = false;
  m.promotedReplica = null;
}

/** sentinelFailoverStateMachine. */
export function failoverStateMachine(s: Sentinel, m: MonitoredMaster): void {
  const now = s.nowMs();
  switch (m.failoverState) {
    case 'wait_start': {
      const leader = getLeader(s, m, m.failoverEpoch);
      // A failover forced by SENTINEL FAILOVER goes on without winning the election.
      if ((leader === null || leader.toLowerCase() !== s.myid.toLowerCase()) && !m.forceFailover) {
        if (now - m.failoverStartMs > Math.min(s.periods.electionTimeoutMs, m.config.failoverTimeoutMs)) {
          s.event('warning', '-failover-abort-not-elected', m, '');
          abortFailover(m, now);
        }
        return;
      }
      s.event('warning', '+elected-leader', m, '');
      if (s.simulateFailure.afterElection) {
        s.simulatedCrash();
        return;
      }
      m.failoverState = 'select_slave';
      m.failoverStateChangeMs = now;
      s.event('warning', '+failover-state-select-slave', m, '');
      return;
    }
    case 'select_slave': {
      const r = selectReplica(s, m);
      if (r === null) {
        s.event('warning', '-failover-abort-no-good-slave', m, '');
        abortFailover(m, now);
        return;
      }
      s.event('warning', '+selected-slave', r, '');
      r.promoted = true;
      m.promotedReplica = r;
      m.failoverState = 'send_slaveof_noone';
      m.failoverStateChangeMs = now;
      s.event('notice', '+failover-state-send-slaveof-noone', r, '');
      return;
    }
    case 'send_slaveof_noone': {
      const r = m.promotedReplica!;
      if (s.disconnected(r)) {
        if (now - m.failoverStateChangeMs > m.config.failoverTimeoutMs) {
          s.event('warning', '-failover-abort-slave-timeout', m, '');
          abortFailover(m, now);
        }
        return;
      }
      if (!sendReplicaOf(r, null)) return;
      s.event('notice', '+failover-state-wait-promotion', r, '');
      m.failoverState = 'wait_promotion';
      m.failoverStateChangeMs = now;
      return;
    }
    case 'wait_promotion':
      if (now - m.failoverStateChangeMs > m.config.failoverTimeoutMs) {
        s.event('warning', '-failover-abort-slave-timeout', m, '');
        abortFailover(m, now);
      }
      return;
    case 'reconf_slaves':
      reconfNextReplica(s, m);
      return;
    default:
  }
}

/**
 * sentinelSelectSlave: among the replicas up, connected, answering, with
 * fresh INFO, a nonzero priority and a link to the master not down too
 * long, the lowest priority, then the largest offset, then the smallest run id.
 */
export function selectReplica(s: Sentinel, m: MonitoredMaster): Instance | null {
  const now = s.nowMs();
  const maxMasterDownMs = (m.sdown ? now - m.sdownSinceMs : 0) + m.config.downAfterMs * 10;
  const infoValidityMs = m.sdown ? s.periods.pingMs * 5 : s.periods.infoMs * 3;
  const candidates = [...m.replicas.values()].filter(
    (r) =>
      !r.sdown &&
      !s.disconnected(r) &&
      now - r.lastAvailMs <= s.periods.pingMs * 5 &&
      r.priority !== 0 &&
      now - r.infoRefreshMs <= infoValidityMs &&
      r.masterLinkDownMs <= maxMasterDownMs,
  );
  candidates.sort((a, b) => {
    if (a.priority !== b.priority) return a.priority - b.priority;
    if (a.replOffset !== b.replOffset) return a.replOffset > b.replOffset ? -1 : 1;
    if (a.runId === '' || b.runId === '') return a.runId === b.runId ? 0 : a.runId === '' ? 1 : -1;
    const x = a.runId.toLowerCase();
    const y = b.runId.toLowerCase();
    return x < y ? -1 : x > y ? 1 : 0;
  });
  return candidates[0] ?? null;
}

/**
 * sentinelSendSlaveOf: one transaction that points the instance at its
 * new master (or makes it a master), saves its config and drops its
 * clients so they reconnect to the right place.
 */
function sendReplicaOf(ri: Instance, to: { ip: string; port: number } | null): boolean {
  const cc = ri.cc;
  if (cc === null) return false;
  cc.send(['MULTI']);
  cc.send(['SLAVEOF', to === null ? 'NO' : to.ip, to === null ? 'ONE' : String(to.port)]);
  cc.send(['CONFIG', 'REWRITE']);
  cc.send(['CLIENT', 'KILL', 'TYPE', 'normal']);
  cc.send(['CLIENT', 'KILL', 'TYPE', 'pubsub']);
  cc.send(['EXEC']);
  return true;
}

/** sentinelForceHelloUpdateForMaster: hellos go out at the next timer to the master, its replicas and sentinels. */
function forceHelloUpdate(s: Sentinel, m: MonitoredMaster): void {
  // The last hello is made to look one publish period older.
  const back = s.periods.publishMs + 1;
  for (const ri of [m, ...m.replicas.values(), ...m.sentinels.values()]) if (ri.lastPubMs >= back) ri.lastPubMs -= back;
}

/** The failover's part of sentinelRefreshInstanceInfo: what the role an instance reports makes us do. */
export function actOnRole(s: Sentinel, ri: Instance, role: 'master' | 'slave'): void {
  const m = ri.master;
  if (ri.kind !== 'slave' || m === null) return;
  const now = s.nowMs();
  if (role === 'master') {
    if (ri.promoted && m.failoverState === 'wait_promotion') {
      // The chosen replica is a master now: its epoch is the one the election was won in.
      m.config.configEpoch = m.failoverEpoch;
      m.failoverState = 'reconf_slaves';
      m.failoverStateChangeMs = now;
      s.flushConfig();
      s.event('warning', '+promoted-slave', ri, '');
      if (s.simulateFailure.afterPromotion) {
        s.simulatedCrash();
        return;
      }
      s.event('warning', '+failover-state-reconf-slaves', m, '');
      s.clientReconfScript(m, 'leader', { ip: m.config.ip, port: m.config.port }, { ip: ri.ip, port: ri.port });
      forceHelloUpdate(s, m);
    } else {
      // A replica that claims to be a master (an old master back) is turned into a replica again, once things are calm.
      const waitMs = s.periods.publishMs * 4;
      if (!ri.promoted && looksSane(s, m) && noDownFor(s, ri, waitMs) && now - ri.roleReportedMs > waitMs) {
        if (sendReplicaOf(ri, { ip: m.config.ip, port: m.config.port })) s.event('notice', '+convert-to-slave', ri, '');
      }
    }
    return;
  }
  if (ri.masterPort !== m.config.port || (ri.masterHost ?? '').toLowerCase() !== m.config.ip.toLowerCase()) {
    const waitMs = m.config.failoverTimeoutMs;
    if (looksSane(s, m) && noDownFor(s, ri, waitMs) && now - ri.slaveConfChangeMs > waitMs) {
      if (sendReplicaOf(ri, { ip: m.config.ip, port: m.config.port })) s.event('notice', '+fix-slave-config', ri, '');
    }
  }
  const promoted = m.promotedReplica;
  if (promoted === null) return;
  if (ri.reconf === 'sent' && ri.masterHost !== null && ri.masterHost.toLowerCase() === promoted.ip.toLowerCase() && ri.masterPort === promoted.port) {
    ri.reconf = 'inprog';
    s.event('notice', '+slave-reconf-inprog', ri, '');
  }
  if (ri.reconf === 'inprog' && ri.masterLinkUp) {
    ri.reconf = 'done';
    s.event('notice', '+slave-reconf-done', ri, '');
  }
}

/** sentinelMasterLooksSane. */
function looksSane(s: Sentinel, m: MonitoredMaster): boolean {
  return m.roleReported === 'master' && !m.sdown && !m.odown && s.nowMs() - m.infoRefreshMs < s.periods.infoMs * 2;
}

/** sentinelRedisInstanceNoDownFor: not down now, and the last down state ended more than `ms` ago. */
function noDownFor(s: Sentinel, ri: Instance, ms: number): boolean {
  const since = Math.max(ri.sdownSinceMs, ri.kind === 'master' ? (ri as MonitoredMaster).odownSinceMs : 0);
  return since === 0 || s.nowMs() - since > ms;
}

/**
 * sentinelFailoverReconfNextSlave: SLAVEOF the promoted replica to the
 * others, no more than parallel-syncs in progress at once; then see
 * whether the failover is over.
 */
function reconfNextReplica(s: Sentinel, m: MonitoredMaster): void {
  const now = s.nowMs();
  const promoted = m.promotedReplica!;
  let inProgress = [...m.replicas.values()].filter((r) => r.reconf === 'sent' || r.reconf === 'inprog').length;
  for (const r of m.replicas.values()) {
    if (inProgress >= m.config.parallelSyncs) break;
    if (r.promoted || r.reconf === 'done') continue;
    if (r.reconf === 'sent' && now - r.reconfSentMs > s.periods.replicaReconfTimeoutMs) {
      s.event('notice', '-slave-reconf-sent-timeout', r, '');
      r.reconf = 'done';
      continue;
    }
    if (r.reconf !== 'none' || s.disconnected(r)) continue;
    if (sendReplicaOf(r, promoted)) {
      r.reconf = 'sent';
      r.reconfSentMs = now;
      s.event('notice', '+slave-reconf-sent', r, '');
      inProgress++;
    }
  }
  detectEnd(s, m);
}

/** sentinelFailoverDetectEnd: every replica reachable follows the promoted one, or the failover timed out. */
function detectEnd(s: Sentinel, m: MonitoredMaster): void {
  const promoted = m.promotedReplica;
  if (promoted === null || promoted.sdown) return;
  let notReconfigured = [...m.replicas.values()].filter((r) => !r.promoted && r.reconf !== 'done' && !r.sdown).length;
  const timeout = s.nowMs() - m.failoverStateChangeMs > m.config.failoverTimeoutMs;
  if (timeout) {
    notReconfigured = 0;
    s.event('warning', '+failover-end-for-timeout', m, '');
  }
  if (notReconfigured === 0) {
    s.event('warning', '+failover-end', m, '');
    m.failoverState = 'update_config';
    m.failoverStateChangeMs = s.nowMs();
  }
  if (timeout) {
    for (const r of m.replicas.values()) {
      if (r.promoted || r.reconf === 'done' || r.reconf === 'sent' || s.disconnected(r)) continue;
      if (sendReplicaOf(r, promoted)) {
        s.event('notice', '+slave-reconf-sent-be', r, '');
        r.reconf = 'sent';
      }
    }
  }
}

/** sentinelFailoverSwitchToPromotedSlave: the master is now the promoted replica's address. */
export function switchToPromoted(s: Sentinel, m: MonitoredMaster): void {
  const ref = m.promotedReplica ?? m;
  s.masterEvent('warning', '+switch-master', m, `${m.config.name} ${m.config.ip} ${m.config.port} ${ref.ip} ${ref.port}`);
  s.resetMasterAndChangeAddress(m, ref.ip, ref.port);
}
