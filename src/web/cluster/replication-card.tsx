import type { TopologyLink, TopologyNode } from './cluster-view.js';
import type { Fault } from './faults.js';
import { faultButtonName, faultLabel } from './faults.js';

/**
 * The servers as replication ties them: each primary with its replicas
 * (and theirs, for a chain), each link's state as both ends see it, the
 * offsets and the lag; and for each server the choice to follow another
 * (REPLICAOF) or to become a primary again (REPLICAOF NO ONE), in one
 * click. Names arrive made visible by cluster-view.ts.
 */
export function ReplicationCard({ topology, onFault }: { topology: readonly TopologyNode[]; onFault: (f: Fault) => void }) {
  const all: Array<{ host: string; port: number }> = [];
  const collect = (n: TopologyNode): void => {
    all.push({ host: n.host, port: n.port });
    n.children.forEach(collect);
  };
  topology.forEach(collect);
  if (all.length < 2 && topology.every((n) => n.role === 'primary' && n.children.length === 0)) return null;
  return (
    <section className="replication" aria-labelledby="replication-title">
      <h3 id="replication-title" className="section-title">
        Replication
      </h3>
      <ul className="topology" aria-label="Primaries and their replicas">
        {topology.map((n) => (
          <NodeItem key={`${n.host}:${n.port}`} node={n} all={all} onFault={onFault} />
        ))}
      </ul>
    </section>
  );
}

function linkText(l: TopologyLink): string {
  if (l.primaryMissing) return 'link down · its primary does not run here';
  if (l.status === 'sync') return l.syncPercent === null ? 'full sync: receiving the snapshot' : `full sync: ${l.syncPercent}% of the snapshot received`;
  const parts = [`link ${l.status}`];
  if (l.behindBytes !== null) parts.push(l.behindBytes === 0 ? 'in sync' : `${l.behindBytes} bytes behind`);
  if (l.lagSeconds !== null) parts.push(`lag ${l.lagSeconds}s`);
  return parts.join(' · ');
}

function NodeItem({ node, all, onFault }: { node: TopologyNode; all: ReadonlyArray<{ host: string; port: number }>; onFault: (f: Fault) => void }) {
  const me = `${node.host}:${node.port}`;
  const others = all.filter((o) => o.host !== node.host || o.port !== node.port);
  const promote: Fault = { kind: 'replicaof', host: node.host, port: node.port, primary: null };
  const status = node.link === null ? 'primary' : node.link.status;
  return (
    <li className={`topology-node status-${status}`}>
      <div className="topology-row">
        <span className="topology-name">{me}</span>
        <span className="muted small">
          {node.role === 'primary' ? 'primary' : `replica of ${node.follows ?? '?'}`} · offset {node.offset}
        </span>
        {node.link !== null ? <span className={`topology-link link-${node.link.status}`}>{linkText(node.link)}</span> : null}
        <span className="topology-actions">
          {node.role === 'replica' ? (
            <button type="button" className="small-button" title={faultLabel(promote)} aria-label={faultButtonName('make primary', promote)} onClick={() => onFault(promote)}>
              make primary
            </button>
          ) : null}
          {others.length > 0 ? (
            <label className="follow">
              <span className="visually-hidden">Make {me} a replica of</span>
              <select
                value=""
                onChange={(e) => {
                  const o = others[Number(e.target.value)];
                  if (o !== undefined) onFault({ kind: 'replicaof', host: node.host, port: node.port, primary: o });
                }}
              >
                <option value="">replica of…</option>
                {others.map((o, i) => (
                  <option key={`${o.host}:${o.port}`} value={i}>
                    {o.host}:{o.port}
                  </option>
                ))}
              </select>
            </label>
          ) : null}
        </span>
      </div>
      {node.children.length > 0 ? (
        <ul aria-label={`Replicas of ${me}`}>
          {node.children.map((c) => (
            <NodeItem key={`${c.host}:${c.port}`} node={c} all={all} onFault={onFault} />
          ))}
        </ul>
      ) : null}
    </li>
  );
}
