import { LINK_PROFILES, type LinkProfileName } from '../../../emulator/sim/index.js';
import type { LinkView } from './cluster-view.js';
import { formatBandwidth, formatRtt } from './cluster-format.js';
import { faultButtonName, faultLabel, type Fault } from './faults.js';
import { Toolbar } from './toolbar.js';

const PROFILES = Object.keys(LINK_PROFILES) as LinkProfileName[];

/** The paths between hosts: each with its profile (the rows of the book's table 4.4), whether it is cut, and the faults for it. */
export function NetworkCard({ links, onFault }: { links: readonly LinkView[]; onFault: (f: Fault) => void }) {
  if (links.length === 0) return null;
  return (
    <section className="network" aria-labelledby="network-title">
      <h3 id="network-title" className="section-title">
        Network
      </h3>
      {links.map((l) => (
        <LinkRow key={`${l.a} ${l.b}`} link={l} onFault={onFault} />
      ))}
    </section>
  );
}

function LinkRow({ link: l, onFault }: { link: LinkView; onFault: (f: Fault) => void }) {
  const cut = l.cut !== 'none';
  const toggle: Fault = cut ? { kind: 'heal', a: l.a, b: l.b } : { kind: 'partition', a: l.a, b: l.b };
  const state = l.cut === 'none' ? 'connected' : l.cut === 'both' ? 'cut both ways' : l.cut === 'a->b' ? `cut ${l.a} → ${l.b}` : `cut ${l.b} → ${l.a}`;
  return (
    <div className={cut ? 'link cut' : 'link'} role="group" aria-label={`Link between ${l.a} and ${l.b}`}>
      <div className="link-header">
        <span className="link-name">
          {l.a} <span aria-hidden="true">⇄</span>
          <span className="visually-hidden">and</span> {l.b}
        </span>
        <span className={cut ? 'badge off' : 'badge on'}>{state}</span>
      </div>
      <div className="link-stats small muted">
        {l.profile} · round trip {formatRtt(l.rttUs)} · {formatBandwidth(l.bandwidthBps)}
      </div>
      <Toolbar label={`Faults of the link between ${l.a} and ${l.b}`} className="fault-bar">
        <button type="button" className={cut ? 'fault go' : 'fault danger'} aria-label={faultButtonName(cut ? 'Heal' : 'Partition', toggle)} title={faultLabel(toggle)} onClick={() => onFault(toggle)}>
          {cut ? 'Heal' : 'Partition'}
        </button>
        <span className="bar-gap" aria-hidden="true" />
        {PROFILES.map((p) => {
          const f: Fault = { kind: 'link-profile', a: l.a, b: l.b, profile: p };
          return (
            <button key={p} type="button" className="fault profile" aria-pressed={l.profile === p} aria-label={faultButtonName(p, f)} title={faultLabel(f)} onClick={() => onFault(f)}>
              {p}
            </button>
          );
        })}
      </Toolbar>
    </div>
  );
}
