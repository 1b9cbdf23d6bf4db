import type { ClusterView, TopologyNode } from './cluster-view.js';

/** What a screen reader needs to know of one server, to tell when it changes. */
interface ServerState {
  readonly role: TopologyNode['role'];
  readonly follows: string | null;
  readonly link: 'up' | 'sync' | 'down' | null;
  readonly offset: number;
}

function servers(view: ClusterView): Map<string, ServerState> {
  const out = new Map<string, ServerState>();
  const walk = (n: TopologyNode): void => {
    out.set(`${n.host}:${n.port}`, { role: n.role, follows: n.follows, link: n.link?.status ?? null, offset: n.offset });
    for (const c of n.children) walk(c);
  };
  for (const n of view.topology) walk(n);
  return out;
}

const LINK_WORDS = { up: 'is up', sync: 'is in a full sync', down: 'is down' } as const;

/**
 * Sentences for a screen reader about what changed in the world between two
 * views of it: hosts losing or regaining power, servers starting and
 * stopping, roles changing and replication links going up or down, each
 * with the replication offset at that moment. Offsets alone move with every
 * write and are not announced: a learner hears what a fault or a command
 * did, not a running counter.
 */
export function clusterChanges(before: ClusterView | null, after: ClusterView): string[] {
  if (before === null) return [];
  const out: string[] = [];
  const powered = new Map(before.hosts.map((h) => [h.name, h.powered]));
  for (const h of after.hosts) {
    const was = powered.get(h.name);
    if (was === true && !h.powered) out.push(`Host ${h.name} lost power.`);
    else if (was === false && h.powered) out.push(`Host ${h.name} has power again.`);
  }
  const old = servers(before);
  const now = servers(after);
  for (const [name, s] of now) {
    const o = old.get(name);
    const as = s.role === 'primary' ? 'a primary' : `a replica of ${s.follows ?? 'another server'}`;
    if (o === undefined) out.push(`${name} is running, as ${as}, at offset ${s.offset}.`);
    else if (o.role !== s.role || o.follows !== s.follows) out.push(`${name} is now ${as}, at offset ${s.offset}.`);
    else if (s.link !== null && o.link !== s.link) out.push(`${name}'s link to ${s.follows ?? 'its primary'} ${LINK_WORDS[s.link]}, at offset ${s.offset}.`);
  }
  for (const name of old.keys()) if (!now.has(name)) out.push(`${name} is no longer running.`);
  return out;
}
