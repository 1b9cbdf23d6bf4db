import type { AckLedger } from '../../emulator/world/ack-ledger.js';
import type { RedisProcess } from '../../emulator/process/index.js';
import type { World } from '../../emulator/world/world.js';

/**
 * The acknowledged-writes ledger's code, loaded on demand: a page that
 * never shows a ledger never loads it. A lesson with a ledger check asks
 * for it when it begins; from then on every world the lesson drives has
 * one ledger, read from the world's trace from its beginning (a world
 * replayed from a checkpoint gives the same one).
 *
 *   await loadLedgerCode();
 *   ledgerOf(world)?.verdict('B');
 */
type LedgerModule = typeof import('../../emulator/world/ack-ledger.js');

let code: LedgerModule | null = null;
let loading: Promise<LedgerModule> | null = null;
const ledgers = new WeakMap<World, AckLedger>();

/** Loads the ledger's code once; later calls share the load. */
export function loadLedgerCode(): Promise<LedgerModule> {
  loading ??= import('../../emulator/world/ack-ledger.js').then((m) => (code = m));
  return loading;
}

/** The world's ledger, made on first call once the code is here; null until then. */
export function ledgerOf(world: World): AckLedger | null {
  let ledger = ledgers.get(world);
  if (ledger === undefined) {
    if (code === null) return null;
    ledgers.set(world, (ledger = new code.AckLedger(world)));
  }
  return ledger;
}

/**
 * The redis-servers running as primaries now (powered, alive, not
 * sentinels), in host order: whose data the ledger is read against. When
 * several are, those with replicas attached: a primary left alone on a
 * machine cut off from everyone (the old one, gone from the cluster)
 * does not hold the cluster's data.
 */
export function primariesNow(world: World): RedisProcess[] {
  const all = runningPrimaries(world);
  if (all.length < 2) return all;
  const followed = all.filter((p) => p.server.replication.primary.replicas.length > 0);
  return followed.length === 0 ? all : followed;
}

function runningPrimaries(world: World): RedisProcess[] {
  const found: RedisProcess[] = [];
  for (const h of world.hosts.values()) {
    if (!h.powered) continue;
    for (const p of h.processes.values()) {
      const r = p as Partial<RedisProcess>;
      if (r.server !== undefined && r.alive === true && r.sentinelMode === false && r.server.replication.masterHost === null) found.push(p as RedisProcess);
    }
  }
  return found;
}
