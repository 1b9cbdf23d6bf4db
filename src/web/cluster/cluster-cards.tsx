import type { HostView, LinkView, TopologyNode } from './cluster-view.js';
import { ReplicationCard } from './replication-card.js';
import type { Fault } from './faults.js';
import { HostCard } from './host-card.js';
import { NetworkCard } from './network-card.js';

/**
 * The cluster tab's cards: the replication topology, each host with its
 * processes and servers, then the network. They load just after the page (cluster-panel.tsx), with
 * the faults their buttons apply.
 */
export default function ClusterCards({
  hosts,
  links,
  topology,
  nowS,
  onFault,
}: {
  hosts: readonly HostView[];
  links: readonly LinkView[];
  topology: readonly TopologyNode[];
  nowS: number;
  onFault: (f: Fault) => void;
}) {
  return (
    <>
      <ReplicationCard topology={topology} onFault={onFault} />
      {hosts.map((h) => (
        <HostCard key={h.name} host={h} nowS={nowS} onFault={onFault} />
      ))}
      <NetworkCard links={links} onFault={onFault} />
    </>
  );
}
