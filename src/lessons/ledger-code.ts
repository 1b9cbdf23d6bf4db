import type { AckLedger } from '../../emulator/world/ack-ledger.js';
import type { World } from '../../emulator/world/world.js';

/**
 * The acknowledged-writes ledger's code, loaded on demand: a page that
 * never shows a ledger never loads it. A lesson with a ledger check asks
 * for it when it begins; from then on every world the lesson drives has
 * one ledger, listening from the first time it is asked for.
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
