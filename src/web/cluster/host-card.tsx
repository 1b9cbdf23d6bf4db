import type { FaultOp } from '../../../emulator/sim/index.js';
import type { HostView } from './cluster-view.js';
import { faultButtonName, faultLabel, type Fault } from './faults.js';
import { ServerCard } from './server-card.js';
import { Toolbar } from './toolbar.js';

const DISK_OPS: readonly FaultOp[] = ['write', 'fsync', 'rename'];

/**
 * A machine: its power, its disk's state and the faults for both, its
 * redis-servers (running, or stopped and ready to start again), and its
 * processes.
 */
export function HostCard({ host, nowS, onFault }: { host: HostView; nowS: number; onFault: (f: Fault) => void }) {
  const power: Fault = host.powered ? { kind: 'power-loss', host: host.name } : { kind: 'power-on', host: host.name };
  const full: Fault = { kind: 'disk-full', host: host.name, full: !host.disk.full };
  const failing = DISK_OPS.filter((op) => host.disk.failing[op] > 0);
  // Servers have cards of their own; the table lists the other processes (shells, tools).
  const others = host.processes.filter((p) => !p.isServer);
  return (
    <article className={host.powered ? 'host' : 'host powered-off'} aria-label={`Host ${host.name}`}>
      <header className="host-header">
        <span className="host-name">{host.name}</span>
        <span className="host-meta">
          {host.profile} · {host.ip}
        </span>
        <span className={host.powered ? 'badge on' : 'badge off'}>{host.powered ? 'power on' : 'power off'}</span>
      </header>
      <Toolbar label={`Faults of host ${host.name}`} className="fault-bar host-faults">
        <button type="button" className={host.powered ? 'fault danger' : 'fault go'} aria-label={faultButtonName(host.powered ? 'Power loss' : 'Power on', power)} title={faultLabel(power)} onClick={() => onFault(power)}>
          {host.powered ? 'Power loss' : 'Power on'}
        </button>
        <button
          type="button"
          className="fault"
          aria-pressed={host.disk.full}
          aria-label={`Disk full on ${host.name}: writes that need space fail with ENOSPC`}
          title={faultLabel(full)}
          onClick={() => onFault(full)}
          disabled={host.disk.kind === 'real'}
        >
          Disk full
        </button>
        {DISK_OPS.map((op) => {
          const f: Fault = { kind: 'disk-error', host: host.name, op, count: 1 };
          const n = host.disk.failing[op];
          return (
            <button key={op} type="button" className="fault" aria-label={faultButtonName(`Fail ${op}`, f)} title={faultLabel(f)} onClick={() => onFault(f)} disabled={host.disk.kind === 'real'}>
              Fail {op}
              {n > 0 ? <span className="count" aria-label={`, ${n} pending`}>{n}</span> : null}
            </button>
          );
        })}
      </Toolbar>
      {host.disk.full || failing.length > 0 ? (
        <p className="disk-state small">
          {host.disk.full ? <span className="bad">disk full: writes that need space fail with ENOSPC</span> : null}
          {failing.map((op) => {
            const n = host.disk.failing[op];
            return (
              <span key={op} className="bad">
                the next {n === 1 ? op : `${n} ${op}`} call{n === 1 ? '' : 's'} will fail with EIO
              </span>
            );
          })}
        </p>
      ) : null}
      {host.servers.map((s) => (
        <ServerCard key={s.pid} host={host.name} server={s} nowS={nowS} onFault={onFault} />
      ))}
      {host.stopped.map((s) => {
        const start: Fault = { kind: 'start-redis', host: host.name, port: s.port };
        return (
          <div key={s.port} className="server stopped">
            <div className="server-header">
              <span className="server-name">
                redis-server :{s.port} <span className="muted small">not running</span>
              </span>
              <button type="button" className="fault go" aria-label={faultButtonName('Start', start)} title={`${faultLabel(start)}: ${s.commandLine}`} onClick={() => onFault(start)} disabled={!host.powered}>
                Start
              </button>
            </div>
            <code className="command-line">{s.commandLine}</code>
          </div>
        );
      })}
      {others.length === 0 ? (
        host.servers.length === 0 && host.stopped.length === 0 ? <p className="muted small">No processes.</p> : null
      ) : (
        <table className="processes">
          <caption className="visually-hidden">Other processes on {host.name}</caption>
          <thead>
            <tr>
              <th scope="col">PID</th>
              <th scope="col">Command</th>
            </tr>
          </thead>
          <tbody>
            {others.map((p) => (
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
}
