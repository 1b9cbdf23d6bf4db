import { useEffect, useMemo, useState } from 'react';
import { ledgerOf, loadLedgerCode } from '../../lessons/ledger-code.js';
import { useStore, useWorkbook } from '../store-context.js';
import { readLedger } from './ledger-rows.js';
import './ledger.css';

/**
 * The acknowledged-writes ledger: every write a client of the world (a
 * code cell's connection, a terminal's redis-cli, redis-cli in a shell)
 * was told succeeded, newest first, each marked kept or lost against the
 * data of the primary now, and the verdict in sentences. It is read from
 * the world's trace from its beginning, so a reloaded page shows the same.
 * Everything shown is React text: keys and values stay inert.
 */
export function LedgerView() {
  const store = useStore();
  // Redrawn as virtual time moves and when the world is replaced.
  const nowUs = useWorkbook((s) => s.clock.nowUs);
  const [ready, setReady] = useState(false);
  useEffect(() => {
    let live = true;
    void loadLedgerCode().then(() => live && setReady(true));
    return () => {
      live = false;
    };
  }, []);
  const world = store.world;
  const reading = useMemo(() => {
    if (!ready) return null;
    const ledger = ledgerOf(world);
    return ledger === null ? null : readLedger(world, ledger);
    // nowUs: the ledger grows as time moves.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [ready, world, nowUs]);
  if (reading === null) return <p className="muted">Opening the ledger…</p>;
  return (
    <div className="ledger-view">
      <div className="ledger-verdict" aria-live="polite">
        {reading.sentences.map((s, i) => (
          <p key={i}>{s}</p>
        ))}
      </div>
      {reading.rows.length === 0 ? null : (
        <div className="ledger-rows" tabIndex={0} role="region" aria-label="Acknowledged writes, newest first">
          <table>
            <caption className="muted">{reading.total > reading.rows.length ? `The newest ${reading.rows.length} of ${reading.total} acknowledged writes` : 'Acknowledged writes, newest first'}</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Server</th>
                <th scope="col">Command</th>
                <th scope="col">Reply</th>
                <th scope="col">Now</th>
              </tr>
            </thead>
            <tbody>
              {reading.rows.map((r) => (
                <tr key={r.seq} className={r.state === 'lost' ? 'lost' : undefined} title={r.why ?? undefined}>
                  <td>{r.at}</td>
                  <td>
                    {r.server} <span className="muted">({r.role})</span>
                  </td>
                  <td className="ledger-command">{r.command}</td>
                  <td>{r.reply}</td>
                  <td>{r.state === 'lost' ? 'lost' : r.state === 'kept' ? 'kept' : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
