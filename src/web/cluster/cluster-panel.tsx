import { memo } from 'react';
import { useWorkbook } from '../store-context.js';
import type { DbView, HostView, ServerView } from './cluster-view.js';

/**
 * The right pane: the machines of the world, their power and processes,
 * and for each redis-server its port, clients, memory and keys. Every
 * text is rendered as React text; names and values arrive quoted by
 * cluster-view.ts.
 */
export function ClusterPanel() {
  const cluster = useWorkbook((s) => s.cluster);
  return (
    <section className="pane cluster-pane" aria-labelledby="cluster-title">
      <h2 id="cluster-title" className="pane-title">
        Cluster
      </h2>
      <div className="cluster-body">
        {cluster.hosts.map((h) => (
          <HostCard key={h.name} host={h} />
        ))}
      </div>
    </section>
  );
}

const HostCard = memo(function HostCard({ host }: { host: HostView }) {
  return (
    <article className="host" aria-label={`Host ${host.name}`}>
      <header className="host-header">
        <span className="host-name">{host.name}</span>
        <span className="host-meta">
          {host.profile} · {host.ip}
        </span>
        <span className={host.powered ? 'badge on' : 'badge off'}>{host.powered ? 'power on' : 'power off'}</span>
      </header>
      {host.servers.map((s) => (
        <ServerCard key={s.pid} server={s} />
      ))}
      {host.processes.length === 0 ? (
        <p className="muted small">No processes.</p>
      ) : (
        <table className="processes">
          <caption className="visually-hidden">Processes on {host.name}</caption>
          <thead>
            <tr>
              <th scope="col">PID</th>
              <th scope="col">Command</th>
            </tr>
          </thead>
          <tbody>
            {host.processes.map((p) => (
              <tr key={p.pid}>
                <td className="num">{p.pid}</td>
                <td className="command">{p.command}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </article>
  );
});

function ServerCard({ server }: { server: ServerView }) {
  return (
    <div className="server">
      <div className="server-header">
        <span className="server-name">redis-server :{server.port}</span>
        <span className="server-stats">
          <span title="Connected clients">{server.clients === 1 ? '1 client' : `${server.clients} clients`}</span>
          <span title={`used_memory: ${server.usedMemoryBytes} bytes`}>{server.usedMemoryHuman} used</span>
        </span>
      </div>
      {server.dbs.length === 0 ? <p className="muted small">No keys.</p> : server.dbs.map((db) => <DbCard key={db.index} db={db} />)}
    </div>
  );
}

function DbCard({ db }: { db: DbView }) {
  const more = db.keys - db.sample.length;
  return (
    <div className="db">
      <div className="db-header">
        <span className="db-name">db{db.index}</span>
        <span className="db-stats">
          {db.keys === 1 ? '1 key' : `${db.keys} keys`}
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
            // Names are cut when long, so two could look alike: the position tells them apart.
            <tr key={i} className="key">
              <td>
                <code className="key-name">{k.name}</code>
              </td>
              <td className={`key-type type-${k.type}`}>{k.type}</td>
              <td>
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
