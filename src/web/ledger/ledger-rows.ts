import type { AckLedger, Loss } from '../../../emulator/world/ack-ledger.js';
import type { World } from '../../../emulator/world/world.js';
import { primariesNow } from '../../lessons/ledger-code.js';

/** One acknowledged write as the ledger panel lists it. */
export interface LedgerRow {
  readonly seq: number;
  /** "12.4 s": virtual time since the world began. */
  readonly at: string;
  /** "A" or "A:6380", and what it was then: "primary", "replica" or "gone". */
  readonly server: string;
  readonly role: string;
  readonly command: string;
  readonly reply: string;
  /** kept: in the truth's data; lost: not; unjudged: a write whose survival the ledger cannot tell. */
  readonly state: 'kept' | 'lost' | 'unjudged';
  /** Why it was lost, in sentences; null otherwise. */
  readonly why: string | null;
}

export interface LedgerReading {
  /** Sentences first: whose data is the truth, and the verdict. */
  readonly sentences: readonly string[];
  /** The newest writes first, at most `limit`. */
  readonly rows: readonly LedgerRow[];
  readonly total: number;
}

/**
 * What the ledger panel shows: every write a client of the world was told
 * succeeded, judged against the data of the one primary running now, and
 * the verdict in sentences ("14 writes acknowledged by A after the
 * partition were lost."). Plain text only: the view renders it as text.
 */
export function readLedger(world: World, ledger: AckLedger, limit = 200): LedgerReading {
  const total = ledger.acknowledged.length;
  const primaries = primariesNow(world);
  const rowsOf = (lost: ReadonlyMap<number, Loss> | null): LedgerRow[] =>
    ledger.acknowledged
      .slice(-limit)
      .reverse()
      .map((w) => {
        const loss = lost?.get(w.seq);
        return {
          seq: w.seq,
          at: `${(w.atUs / 1e6).toFixed(1)} s`,
          server: w.server.endsWith(':6379') ? w.host : w.server,
          role: w.role === 'master' ? 'primary' : w.role,
          command: w.command,
          reply: w.reply,
          state: w.judge.kind === 'none' || lost === null ? 'unjudged' : loss !== undefined ? 'lost' : 'kept',
          why: loss?.explanation ?? null,
        };
      });
  if (total === 0) return { sentences: ['No client of the world has been told a write succeeded yet.'], rows: [], total };
  if (primaries.length !== 1) {
    const why = primaries.length === 0 ? 'No redis-server runs as a primary now' : `${primaries.map((p) => p.host.name).join(' and ')} are all primaries now`;
    return { sentences: [`${why}: the writes are judged once one primary is left.`], rows: rowsOf(null), total };
  }
  const truth = primaries[0]!;
  const v = ledger.verdict(truth.host.name, truth.port);
  const lost = new Map(v.lost.map((l) => [l.write.seq, l]));
  const head = `${count(v.acknowledged, 'write')} acknowledged, ${v.judged} of them judged against the data on ${truth.host.name}, the primary now.`;
  const verdict = v.summary.length === 0 ? ['No acknowledged write is missing.'] : v.summary;
  return { sentences: [head, ...verdict], rows: rowsOf(lost), total };
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
