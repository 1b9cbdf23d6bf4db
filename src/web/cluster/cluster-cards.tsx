import type { HostView, LinkView } from './cluster-view.js';
import type { Fault } from './faults.js';
import { HostCard } from './host-card.js';
import { NetworkCard } from './network-card.js';

/**
 * The cluster tab's cards: each host with its processes and servers, then
 * the network. They load just after the page (cluster-panel.tsx), with
 * the faults their buttons apply.
 */
export default function ClusterCards({ hosts, links, nowS, onFault }: { hosts: readonly HostView[]; links: readonly LinkView[]; nowS: number; onFault: (f: Fault) => void }) {
  return (
    <>
      {hosts.map((h) => (
        <HostCard key={h.name} host={h} nowS={nowS} onFault={onFault} />
      ))}
      <NetworkCard links={links} onFault={onFault} />
    </>
  );
}
