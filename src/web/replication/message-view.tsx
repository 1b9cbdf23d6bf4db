import { useMemo, useState } from 'react';
import type { HostView } from '../cluster/cluster-view.js';
import { useStore, useWorkbook } from '../store-context.js';
import { formatElapsed } from '../timeline/clock-format.js';
import { terminalText } from '../terminal/sanitize.js';
import { layoutSequence, type SequenceRow } from './sequence-layout.js';
import { wireMessages, type MessageKind } from './wire-messages.js';
import './replication.css';

/** What the filter offers. */
const FILTERS: ReadonlyArray<{ id: 'all' | MessageKind; label: string }> = [
  { id: 'all', label: 'Everything' },
  { id: 'handshake', label: 'Handshake (PING, REPLCONF, PSYNC, replies)' },
  { id: 'snapshot', label: 'Snapshot (the RDB transfer)' },
  { id: 'stream', label: 'Stream (writes, PINGs, ACKs)' },
];

/** Width of the drawing: the two lifelines sit at its sides. */
const WIDTH = 340;
const LEFT_X = 70;
const RIGHT_X = WIDTH - 70;

/**
 * The message view: the bytes between two hosts drawn as a sequence
 * diagram over virtual time. Each message is an arrow from the moment it
 * left to the moment it arrived; an RDB transfer is a bar as long as it
 * took; the steps of table 4.2 that each side recorded in the timeline
 * sit on its lifeline at their time. Long quiet stretches are shortened
 * (marked ≈), so the diagram stays readable. Every label is text.
 */
export function MessageView({ hosts }: { hosts: readonly HostView[] }) {
  const store = useStore();
  // Redrawn as virtual time moves.
  const nowUs = useWorkbook((s) => s.clock.nowUs);
  const names = hosts.map((h) => h.name);
  const [left, setLeft] = useState<string>(names[0] ?? '');
  const [right, setRight] = useState<string>(names[1] ?? names[0] ?? '');
  const [filter, setFilter] = useState<'all' | MessageKind>('all');
  const [picked, setPicked] = useState<number | null>(null);
  const world = store.world;
  const startUs = world.kernel.startUs;

  const rows = useMemo((): SequenceRow[] => {
    const pieces = world.network.wire?.pieces() ?? [];
    // Pieces a process sends ahead of the kernel's clock show once their time comes.
    const messages = wireMessages(pieces, left, right).filter((m) => (filter === 'all' || m.kind === filter) && m.sentUs <= nowUs);
    const since = messages.length === 0 ? Infinity : messages[0]!.sentUs - startUs;
    const steps = world.trace.entries
      .filter((e) => e.kind === 'repl' && (e.source === left || e.source === right) && e.t >= since)
      .map((e) => ({ atUs: e.t + startUs, onLeft: e.source === left, text: terminalText(e.text) }));
    return layoutSequence(messages, steps);
  }, [world, left, right, filter, nowUs, startUs]);

  const height = rows.length === 0 ? 60 : rows[rows.length - 1]!.bottom + 20;
  const chosen = picked === null ? null : rows[picked] ?? null;

  return (
    <div className="message-view">
      <div className="message-controls">
        <label>
          <span>From</span>
          <select value={left} onChange={(e) => setLeft(e.target.value)}>
            {names.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </label>
        <label>
          <span>to</span>
          <select value={right} onChange={(e) => setRight(e.target.value)}>
            {names.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </label>
        <label>
          <span className="visually-hidden">Show</span>
          <select value={filter} onChange={(e) => setFilter(e.target.value as 'all' | MessageKind)}>
            {FILTERS.map((f) => (
              <option key={f.id} value={f.id}>
                {f.label}
              </option>
            ))}
          </select>
        </label>
      </div>
      {left === right ? (
        <p className="muted small">Choose two different hosts.</p>
      ) : rows.length === 0 ? (
        <p className="muted small">
          Nothing between {left} and {right} yet. Make one a replica of the other (REPLICAOF) to see the handshake, the snapshot and the stream.
        </p>
      ) : (
        <svg className="sequence" width={WIDTH} height={height} role="img" aria-label={`Messages between ${left} and ${right}`}>
          <text x={LEFT_X} y={14} className="lifeline-name" textAnchor="middle">
            {left}
          </text>
          <text x={RIGHT_X} y={14} className="lifeline-name" textAnchor="middle">
            {right}
          </text>
          <line x1={LEFT_X} y1={20} x2={LEFT_X} y2={height} className="lifeline" />
          <line x1={RIGHT_X} y1={20} x2={RIGHT_X} y2={height} className="lifeline" />
          {rows.map((r, i) => (
            <Row key={i} row={r} index={i} picked={picked === i} onPick={() => setPicked(picked === i ? null : i)} startUs={startUs} />
          ))}
        </svg>
      )}
      {chosen !== null && chosen.message !== null ? (
        <p className="message-detail small" role="status">
          T+{formatElapsed(chosen.message.sentUs - startUs)} → T+{formatElapsed(chosen.message.arriveUs - startUs)}: {chosen.message.label} ·{' '}
          {chosen.message.bytes} bytes{chosen.message.pieces > 1 ? ` in ${chosen.message.pieces} pieces` : ''}
        </p>
      ) : null}
    </div>
  );
}

function Row({ row, index, picked, onPick, startUs }: { row: SequenceRow; index: number; picked: boolean; onPick: () => void; startUs: number }) {
  const time = <text x={2} y={row.top + 4} className="row-time">{formatElapsed(row.atUs - startUs).slice(3)}</text>;
  if (row.gap) {
    return (
      <g>
        <text x={WIDTH / 2} y={row.top + 4} className="gap" textAnchor="middle">
          ≈
        </text>
      </g>
    );
  }
  if (row.step !== null) {
    const x = row.step.onLeft ? LEFT_X : RIGHT_X;
    return (
      <g className="step">
        {time}
        <circle cx={x} cy={row.top} r={3.5} />
        <title>{row.step.text}</title>
        <text x={row.step.onLeft ? x + 6 : x - 6} y={row.top + 4} textAnchor={row.step.onLeft ? 'start' : 'end'} className="step-label">
          {/^step \d/.test(row.step.text) ? row.step.text.slice(0, 6) : 'resync'}
        </text>
      </g>
    );
  }
  const m = row.message!;
  const x1 = m.fromLeft ? LEFT_X : RIGHT_X;
  const x2 = m.fromLeft ? RIGHT_X : LEFT_X;
  const kind = `msg msg-${m.kind}${picked ? ' picked' : ''}`;
  if (m.kind === 'snapshot') {
    return (
      <g className={kind} onClick={onPick} role="button" tabIndex={0} aria-label={`${m.label}, message ${index + 1}`} onKeyDown={(e) => (e.key === 'Enter' ? onPick() : undefined)}>
        {time}
        <polygon points={`${x1},${row.top} ${x2},${row.top + 6} ${x2},${row.bottom} ${x1},${row.bottom - 6}`} className="rdb-bar" />
        <text x={WIDTH / 2} y={(row.top + row.bottom) / 2 + 4} textAnchor="middle" className="msg-label">
          {m.label}
        </text>
      </g>
    );
  }
  const arrowY = row.bottom;
  const dir = m.fromLeft ? -1 : 1;
  return (
    <g className={kind} onClick={onPick} role="button" tabIndex={0} aria-label={`${m.label}, message ${index + 1}`} onKeyDown={(e) => (e.key === 'Enter' ? onPick() : undefined)}>
      {time}
      <line x1={x1} y1={row.top} x2={x2} y2={arrowY} className="arrow" />
      <polyline points={`${x2 + dir * 6},${arrowY - 4} ${x2},${arrowY} ${x2 + dir * 6},${arrowY + 3}`} className="arrow-head" />
      <text x={WIDTH / 2} y={Math.min(row.top, arrowY) - 2} textAnchor="middle" className="msg-label">
        {m.label.length > 34 ? `${m.label.slice(0, 33)}…` : m.label}
      </text>
    </g>
  );
}
