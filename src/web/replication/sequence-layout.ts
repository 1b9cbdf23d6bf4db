import type { WireMessage } from './wire-messages.js';

/**
 * Where each message of the sequence diagram goes, top to bottom in time
 * order. Heights grow with the time things take on a logarithmic scale, so
 * a LAN's fraction of a millisecond and a VPN's tens of milliseconds both
 * show, and a transfer of seconds stands out as a long bar without pushing
 * the rest off the page; a quiet stretch of more than a second becomes a
 * small break (≈).
 */

/** A step of table 4.2 (or a resync) recorded on one side's timeline. */
export interface SequenceStep {
  readonly atUs: number;
  readonly onLeft: boolean;
  readonly text: string;
}

export interface SequenceRow {
  /** Virtual time of the row's start. */
  readonly atUs: number;
  readonly top: number;
  readonly bottom: number;
  readonly message: WireMessage | null;
  readonly step: SequenceStep | null;
  /** A break in time. */
  readonly gap: boolean;
}

/** Where the first row starts, under the lifelines' names. */
const FIRST_TOP = 34;
/** A quiet stretch longer than this is drawn as a break. */
const GAP_US = 1_000_000;

/** Height of an arrow for a one-way delay. */
function arrowDrop(us: number): number {
  return 4 + 12 * Math.log10(1 + Math.max(0, us) / 100);
}

/** Height of a transfer's bar for its duration. */
function barHeight(us: number): number {
  return 18 + 30 * Math.log10(1 + Math.max(0, us) / 1000);
}

/** Space before a row, for the time since the previous one started. */
function spacing(us: number): number {
  // At least a line of text apart, so labels of things that happen together do not overlap.
  return Math.min(34, 14 + 8 * Math.log10(1 + Math.max(0, us) / 1000));
}

export function layoutSequence(messages: readonly WireMessage[], steps: readonly SequenceStep[]): SequenceRow[] {
  const items: Array<{ atUs: number; message: WireMessage | null; step: SequenceStep | null }> = [
    ...messages.map((m) => ({ atUs: m.sentUs, message: m, step: null })),
    ...steps.map((s) => ({ atUs: s.atUs, message: null, step: s })),
  ].sort((a, b) => a.atUs - b.atUs);
  const rows: SequenceRow[] = [];
  let bottom = FIRST_TOP;
  let lastUs: number | null = null;
  for (const it of items) {
    const dt = lastUs === null ? 0 : it.atUs - lastUs;
    if (dt > GAP_US) {
      const top = bottom + 10;
      rows.push({ atUs: it.atUs, top, bottom: top + 8, message: null, step: null, gap: true });
      bottom = top + 8;
    }
    const top = rows.length === 0 ? FIRST_TOP : bottom + spacing(dt > GAP_US ? 0 : dt);
    let end = top;
    if (it.message !== null) {
      const m = it.message;
      end = top + (m.kind === 'snapshot' ? barHeight(m.arriveUs - m.sentUs) : arrowDrop(m.arriveUs - m.sentUs));
    }
    rows.push({ atUs: it.atUs, top, bottom: end, message: it.message, step: it.step, gap: false });
    bottom = end;
    lastUs = it.atUs;
  }
  return rows;
}
