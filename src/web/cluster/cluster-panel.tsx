import { lazy, useCallback, useEffect, useState } from 'react';
import { LaterPart } from '../layout/later-part.js';
import { useStore, useWorkbook } from '../store-context.js';
import { ClusterAnnouncer } from './cluster-announcer.js';
import './cluster.css';
import type { Fault, FaultOutcome } from './faults.js';

/** The hosts' and the network's cards, with the faults they apply, load just after the page. */
const ClusterCards = lazy(() => import('./cluster-cards.js'));

/** The disk view (file list, decoders, hex view, upload) loads when its tab is first opened. */
const DiskPanel = lazy(() => import('../disk/disk-panel.js').then((m) => ({ default: m.DiskPanel })));

/** The message view (the bytes between two hosts as a sequence diagram) loads when its tab is first opened. */
const MessageView = lazy(() => import('../replication/message-view.js').then((m) => ({ default: m.MessageView })));

/** The acknowledged-writes ledger loads when its tab is first opened. */
const LedgerView = lazy(() => import('../ledger/ledger-view.js').then((m) => ({ default: m.LedgerView })));

type PaneTab = 'cluster' | 'disk' | 'messages' | 'ledger';

const TABS: ReadonlyArray<{ id: PaneTab; label: string }> = [
  { id: 'cluster', label: 'Cluster' },
  { id: 'disk', label: 'Disk' },
  { id: 'messages', label: 'Messages' },
  { id: 'ledger', label: 'Ledger' },
];

/**
 * The right pane, in two tabs. Cluster: the machines of the world, their
 * power, processes and disks' faults, each redis-server with its keys,
 * persistence and replication state, and the network between the hosts,
 * with a button for every fault. Disk: each host's files and what a power
 * loss would take from them now. Every text is React text; names and
 * values arrive quoted by cluster-view.ts. Messages: the bytes between
 * two hosts as a sequence diagram.
 */
export function ClusterPanel() {
  const store = useStore();
  const cluster = useWorkbook((s) => s.cluster);
  const [tab, setTab] = useState<PaneTab>('cluster');
  const [outcome, setOutcome] = useState<FaultOutcome | null>(null);
  // A fault's outcome speaks of the world it happened in: it goes with that
  // world (another lesson, the sandbox, a rewind), and one that arrives after
  // its world was replaced is not shown at all.
  useEffect(() => store.onWorldChange(() => setOutcome(null)), [store]);
  const onFault = useCallback((f: Fault) => {
    const world = store.world;
    void import('./faults.js')
      .then(({ applyFaultWhenReady }) => applyFaultWhenReady(store, f))
      .then((o) => {
        if (store.world === world) setOutcome(o);
      });
  }, [store]);
  const nowS = cluster.nowUs / 1e6;

  const onTabKey = (e: React.KeyboardEvent, index: number): void => {
    if (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight') return;
    e.preventDefault();
    const next = TABS[(index + (e.key === 'ArrowLeft' ? TABS.length - 1 : 1)) % TABS.length]!;
    setTab(next.id);
    document.getElementById(`pane-tab-${next.id}`)?.focus();
  };

  return (
    <section className="pane cluster-pane" aria-label="Cluster and disks">
      <div className="pane-tabs" role="tablist" aria-label="Cluster or disks">
        {TABS.map((t, i) => (
          <button
            key={t.id}
            type="button"
            role="tab"
            id={`pane-tab-${t.id}`}
            aria-selected={tab === t.id}
            aria-controls={`pane-panel-${t.id}`}
            tabIndex={tab === t.id ? 0 : -1}
            className={tab === t.id ? 'pane-tab active' : 'pane-tab'}
            onClick={() => setTab(t.id)}
            onKeyDown={(e) => onTabKey(e, i)}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id="pane-panel-cluster" aria-labelledby="pane-tab-cluster" className="cluster-body" hidden={tab !== 'cluster'}>
        <LaterPart what="The machines' cards" loading={<p className="muted">Loading the machines…</p>}>
          <ClusterCards hosts={cluster.hosts} links={cluster.links} topology={cluster.topology} nowS={nowS} onFault={onFault} />
        </LaterPart>
      </div>
      <div role="tabpanel" id="pane-panel-disk" aria-labelledby="pane-tab-disk" className="cluster-body disk-body" hidden={tab !== 'disk'}>
        {tab === 'disk' ? (
          <LaterPart what="The disk view" loading={<p className="muted">Loading the disk view…</p>}>
            <DiskPanel hosts={cluster.hosts} />
          </LaterPart>
        ) : null}
      </div>
      <div role="tabpanel" id="pane-panel-messages" aria-labelledby="pane-tab-messages" className="cluster-body" hidden={tab !== 'messages'}>
        {tab === 'messages' ? (
          <LaterPart what="The message view" loading={<p className="muted">Loading the message view…</p>}>
            <MessageView hosts={cluster.hosts} />
          </LaterPart>
        ) : null}
      </div>
      <div role="tabpanel" id="pane-panel-ledger" aria-labelledby="pane-tab-ledger" className="cluster-body" hidden={tab !== 'ledger'}>
        {tab === 'ledger' ? (
          <LaterPart what="The ledger" loading={<p className="muted">Loading the ledger…</p>}>
            <LedgerView />
          </LaterPart>
        ) : null}
      </div>
      <p className={outcome !== null && !outcome.ok ? 'fault-status bad' : 'fault-status'} role="status">
        {outcome?.message ?? ''}
      </p>
      <ClusterAnnouncer />
    </section>
  );
}
