import { useEffect, useRef, useState } from 'react';
import { useWorkbook } from '../store-context.js';
import { useScreenReaderMode } from '../terminal/screen-reader-mode.js';
import { clusterChanges } from './cluster-announce.js';
import type { ClusterView } from './cluster-view.js';

/**
 * In screen reader mode, a polite live region that says what changed in
 * the cluster (power, servers, roles, links, with offsets), so a learner
 * who cannot see the cards hears what a fault or a REPLICAOF did.
 */
export function ClusterAnnouncer() {
  const cluster = useWorkbook((s) => s.cluster);
  const { on } = useScreenReaderMode();
  const previous = useRef<ClusterView | null>(null);
  const [said, setSaid] = useState('');
  useEffect(() => {
    const changes = clusterChanges(previous.current, cluster);
    previous.current = cluster;
    if (on && changes.length > 0) setSaid(changes.join(' '));
  }, [cluster, on]);
  return (
    <p className="visually-hidden" role="status" aria-live="polite" aria-label="Cluster changes">
      {on ? said : ''}
    </p>
  );
}
