import { ErrorReply, PushReply, StatusReply, type Reply } from '../resp/reply.js';
import { commandFacts } from '../server/command-table.js';
import { jsonQuote, jsonQuoteAll } from '../sim/json-quote.js';
import type { Socket } from '../sim/network.js';
import type { World } from './world.js';

/**
 * The trace kinds the acknowledged-writes ledger (ack-ledger.ts) is read
 * from: the acknowledgements, the servers' roles, and what cut servers
 * off or ended them. The world keeps every entry of these kinds (see
 * Trace.keep), so a ledger opened late, or in a world restored from a
 * checkpoint, reads the same history as one opened at the start.
 */
export const LEDGER_KINDS = ['ack', 'role', 'partition', 'heal', 'power-loss', 'boot', 'exit'];

/**
 * Follows the replies one client connection of the world receives and
 * writes an 'ack' entry into the trace for each reply that told the
 * client a write succeeded (the commands of an EXEC one by one). The
 * entry is written where the client has the reply: a redis-cli prints
 * it then, a library resolves its promise. It names the server that
 * answered and what it was then (role, replication offset):
 *
 *   A:6379 master 1234 "OK" ["SET","order:3","3"]
 *
 * Every client the world runs writes them (library connections, the
 * terminals' sessions, redis-cli given a command in a shell), so a
 * replayed world writes them again, identically.
 */
export class AckTrace {
  /** Commands queued in the MULTI under way, to pair with EXEC's replies; null outside one. */
  private queued: string[][] | null = null;

  constructor(
    private readonly world: World,
    private readonly socket: Socket,
  ) {}

  /** The client received `reply` to `argv`. */
  reply(argv: readonly string[], reply: Reply): void {
    if (reply instanceof PushReply) return;
    const name = argv[0]!.toLowerCase();
    if (name === 'multi') {
      if (!(reply instanceof ErrorReply)) this.queued = [];
    } else if (name === 'discard') {
      this.queued = null;
    } else if (name === 'exec') {
      const queue = this.queued;
      this.queued = null;
      if (queue !== null && Array.isArray(reply)) queue.forEach((q, i) => this.acked(q, reply[i] as Reply));
    } else if (this.queued !== null) {
      if (!(reply instanceof ErrorReply)) this.queued.push([...argv]);
    } else this.acked(argv, reply, name);
  }

  private acked(argv: readonly string[], reply: Reply, name = argv[0]!.toLowerCase()): void {
    if (reply instanceof ErrorReply || reply === null || reply === undefined) return;
    const firstKey = ledgerFirstKey(name);
    if (firstKey === 0 || argv.length <= firstKey) return;
    const s = this.socket;
    const port = s.remotePort;
    const p = typeof port === 'number' && this.world.hosts.has(s.remoteHost) ? this.world.redis(s.remoteHost, port) : undefined;
    const r = p?.alive === true ? p.server.replication : undefined;
    const role = r === undefined ? 'gone' : r.masterHost === null ? 'master' : 'replica';
    this.world.trace.add(s.host.name, 'ack', `${s.remoteHost}:${port} ${role} ${r?.masterReplOffset ?? 0} ${jsonQuote(replyText(reply))} ${jsonQuoteAll(argv)}`);
  }
}

/**
 * Per command name (lower case): the position of its first key when it is
 * a write with keys, whose acknowledgements the ledger records; 0 for any
 * other. Every reply a client receives asks, so the answer is worked out
 * once per name from Redis's facts; names with no facts (unknown commands)
 * are not kept, so what clients send cannot grow the map.
 */
const ledgerFirstKeys = new Map<string, number>();

function ledgerFirstKey(name: string): number {
  const known = ledgerFirstKeys.get(name);
  if (known !== undefined) return known;
  const facts = commandFacts(name);
  if (facts === undefined) return 0;
  const flags = ((facts.info[2] as { set?: Array<{ s: string }> }).set ?? []).map((f) => f.s);
  const firstKey = facts.info[3] as number;
  const k = flags.includes('write') && firstKey > 0 ? firstKey : 0;
  ledgerFirstKeys.set(name, k);
  return k;
}

/** A reply as the ledger shows it: the status, the number or the string; '' for others. */
function replyText(r: Reply): string {
  if (typeof r === 'string') return r;
  if (r instanceof StatusReply) return r.text;
  if (typeof r === 'number' || typeof r === 'bigint') return String(r);
  return '';
}
