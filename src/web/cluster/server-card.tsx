import type { DbView, PersistenceView, ReplicationView, ServerView } from './cluster-view.js';
import { formatAgo, plural } from './cluster-format.js';
import type { Fault } from './faults.js';
import { faultButtonName, faultLabel } from './faults.js';
import { Toolbar } from './toolbar.js';

/**
 * One running redis-server: its port and pid with the buttons that end it,
 * its persistence and replication state as INFO reports them, and a glance
 * at its keys. Names and values arrive quoted by cluster-view.ts.
 */
export function ServerCard({ host, server, nowS, onFault }: { host: string; server: ServerView; nowS: number; onFault: (f: Fault) => void }) {
  const kill: Fault = { kind: 'kill', host, pid: server.pid };
  const term: Fault = { kind: 'term', host, pid: server.pid };
  const program = server.sentinel ? 'redis-sentinel' : 'redis-server';
  return (
    <div className="server" aria-label={`${program} on port ${server.port}`} role="group">
      <div className="server-header">
        <span className="server-name">
          {program} :{server.port} <span className="muted small">pid {server.pid}</span>
        </span>
        <Toolbar label={`Stop ${program} on ${host} port ${server.port}`} className="fault-bar">
          <button type="button" className="fault danger" aria-label={faultButtonName('kill -9', kill)} title={faultLabel(kill)} onClick={() => onFault(kill)}>
            kill -9
          </button>
          <button type="button" className="fault" aria-label={faultButtonName('SIGTERM', term)} title={faultLabel(term)} onClick={() => onFault(term)}>
            SIGTERM
          </button>
        </Toolbar>
      </div>
      <div className="server-stats">
        <span title="Connected clients">{plural(server.clients, 'client')}</span>
        <span title={`used_memory: ${server.usedMemoryBytes} bytes`}>{server.usedMemoryHuman} used</span>
      </div>
      {server.sentinel ? (
        <p className="muted small">Watches primaries and their replicas, and holds no keys. Ask it with redis-cli -p {server.port} SENTINEL MASTERS.</p>
      ) : (
        <>
          <Persistence p={server.persistence} replication={server.replication} nowS={nowS} />
          {server.dbs.length === 0 ? <p className="muted small no-keys">No keys.</p> : server.dbs.map((db) => <DbCard key={db.index} db={db} />)}
        </>
      )}
    </div>
  );
}

function roleText(r: ReplicationView): string {
  if (r.role === 'slave') return `replica of ${r.primary ?? '?'} · link ${r.linkStatus ?? '?'} · offset ${r.offset}`;
  return `${r.role} · ${plural(r.connectedReplicas, 'replica')} · offset ${r.offset}`;
}

function Persistence({ p, replication, nowS }: { p: PersistenceView; replication: ReplicationView; nowS: number }) {
  const pct = p.bgsaveKeysTotal > 0 ? Math.floor((p.bgsaveKeysProcessed / p.bgsaveKeysTotal) * 100) : 0;
  return (
    <dl className="persistence">
      <dt>RDB</dt>
      <dd>
        {p.bgsaveInProgress ? (
          <span className="saving">
            BGSAVE in progress
            <progress max={100} value={pct} aria-label="BGSAVE progress" />
            {pct}% of {p.bgsaveKeysTotal} keys
          </span>
        ) : (
          <span>
            {p.lastSaveUnixS === null ? 'not saved since start' : `saved ${formatAgo(p.lastSaveUnixS, nowS)}`}
            {p.lastBgsaveOk ? '' : ' · '}
            {p.lastBgsaveOk ? null : <span className="bad">last BGSAVE failed</span>}
          </span>
        )}
        <span className="muted"> · {plural(p.changesSinceSave, 'change')} since</span>
        <span className="muted" title={p.saveRules === '' ? 'No save rules: only SAVE, BGSAVE or a shutdown write dump.rdb' : `save ${p.saveRules}`}>
          {' '}
          · {p.saveRules === '' ? 'no save rules' : 'save rules on'}
        </span>
      </dd>
      <dt>AOF</dt>
      <dd>
        {p.aofEnabled ? `on · appendfsync ${p.appendfsync}` : 'off'}
        {p.aofRewriteInProgress ? <span className="saving"> · rewriting</span> : null}
        {p.aofEnabled && !p.aofLastWriteOk ? <span className="bad"> · last write failed</span> : null}
      </dd>
      <dt>Role</dt>
      <dd>{roleText(replication)}</dd>
      {p.loading ? (
        <>
          <dt>State</dt>
          <dd className="saving">loading the dataset: clients get -LOADING</dd>
        </>
      ) : null}
      {p.writesRefused !== null ? (
        <>
          <dt>Writes</dt>
          <dd className="bad" title={p.writesRefused}>
            refused with MISCONF: a disk error stops them
          </dd>
        </>
      ) : null}
    </dl>
  );
}

function DbCard({ db }: { db: DbView }) {
  const more = db.keys - db.sample.length;
  return (
    <div className="db">
      <div className="db-header">
        <span className="db-name">db{db.index}</span>
        <span className="db-stats">
          {plural(db.keys, 'key')}
          {db.expires > 0 ? `, ${db.expires} with TTL` : ''}
        </span>
      </div>
      <table className="keys">
        <caption className="visually-hidden">Keys of db{db.index}</caption>
        <colgroup>
          <col className="col-key" />
          <col className="col-type" />
          <col />
        </colgroup>
        <thead className="visually-hidden">
          <tr>
            <th scope="col">Key</th>
            <th scope="col">Type</th>
            <th scope="col">Value</th>
          </tr>
        </thead>
        <tbody>
          {db.sample.map((k, i) => (
            // Names are cut when long, so two could look alike: the full name shows on hover, and
            // screen readers read the cell's whole text (the cut is only drawn).
            <tr key={i} className="key">
              <td title={k.name}>
                <code className="key-name">{k.name}</code>
              </td>
              <td className={`key-type type-${k.type}`}>{k.type}</td>
              <td title={k.detail}>
                <code className="key-detail">{k.detail}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {more > 0 ? <p className="muted small more-keys">and {more} more</p> : null}
    </div>
  );
}
