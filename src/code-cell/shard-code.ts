import type { CellRequest } from './protocol.js';

type ShardCode = typeof import('../../emulator/world/sharded-client.js');

let loading: Promise<ShardCode> | null = null;
let loaded: ShardCode | null = null;

/**
 * What to wait for before `requests` can be carried out: null when none
 * opens a sharded connection or the sharding code is here; else its load
 * (not part of what a first page loads). A load that fails lets the
 * requests go on: the open then fails and the cell's commands say why.
 */
export function shardCodeFor(requests: readonly CellRequest[]): Promise<void> | null {
  if (loaded !== null || !requests.some((r) => r.op === 'open' && r.shards !== undefined)) return null;
  loading ??= import('../../emulator/world/sharded-client.js');
  return loading.then(
    (m) => {
      loaded = m;
    },
    () => undefined,
  );
}

/** The sharding code once shardCodeFor has loaded it, else null. */
export function shardCode(): ShardCode | null {
  return loaded;
}
