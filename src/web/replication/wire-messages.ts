import type { WirePiece } from '../../../emulator/sim/index.js';
import { terminalText } from '../terminal/sanitize.js';

/**
 * The bytes between two hosts as the messages of a sequence diagram: each
 * piece the network carried becomes a labelled message (a command with its
 * first arguments, a status reply, a keep-alive newline), and the pieces of
 * an RDB transfer one bar from its first byte's departure to its last
 * byte's arrival. Every label is made visible text: nothing from the wire
 * is shown as it is.
 */

/** What a message is part of, for the view's filter. */
export type MessageKind = 'handshake' | 'snapshot' | 'stream' | 'other';

export interface WireMessage {
  readonly kind: MessageKind;
  /** From the left host (true) or the right one. */
  readonly fromLeft: boolean;
  readonly sentUs: number;
  readonly arriveUs: number;
  readonly bytes: number;
  /** What it says: "PSYNC ? -1", "+FULLRESYNC 8c…", "RDB 1.2 MB", "SET k v". */
  readonly label: string;
  /** The pieces it gathers (an RDB transfer has many). */
  readonly pieces: number;
}

/** Commands of the handshake and of the primary's upkeep. */
const HANDSHAKE = new Set(['PING', 'AUTH', 'REPLCONF', 'PSYNC', 'SYNC']);
/** Status replies of the handshake. */
const HANDSHAKE_REPLIES = /^\+(PONG|OK|FULLRESYNC|CONTINUE)\b|^-/;
/** Words of a command shown in its label. */
const LABEL_WORDS = 4;

/** The arguments of the first commands in a piece's head (RESP multibulk), as far as the head goes. */
function commandsIn(head: string): string[][] {
  const out: string[][] = [];
  let pos = 0;
  while (pos < head.length && head[pos] === '*') {
    const nl = head.indexOf('\r\n', pos);
    if (nl < 0) break;
    const n = Number(head.slice(pos + 1, nl));
    pos = nl + 2;
    const argv: string[] = [];
    for (let i = 0; i < n && pos < head.length; i++) {
      const hl = head.indexOf('\r\n', pos);
      if (hl < 0 || head[pos] !== '$') break;
      const len = Number(head.slice(pos + 1, hl));
      argv.push(head.slice(hl + 2, hl + 2 + len));
      pos = hl + 2 + len + 2;
    }
    out.push(argv);
    if (argv.length < n) break;
  }
  return out;
}

/** Text made visible: control characters, line breaks and tabs included. */
function visible(s: string): string {
  return terminalText(s).replace(/[\r\n\t]/g, (c) => (c === '\r' ? '\\r' : c === '\n' ? '\\n' : '\\t'));
}

/** Byte strings made visible, cut with an ellipsis after `max` bytes. */
function cut(s: string, max: number): string {
  return s.length > max ? `${visible(s.slice(0, max - 1))}…` : visible(s);
}

function words(argv: readonly string[]): string {
  const shown = argv.slice(0, LABEL_WORDS).map((a) => cut(a, 42));
  return shown.join(' ') + (argv.length > LABEL_WORDS ? ' …' : '');
}

function humanBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}

/** Per direction of a connection: whether an RDB transfer is under way. */
interface DirectionState {
  inRdb: boolean;
  rdb: { sentUs: number; arriveUs: number; bytes: number; pieces: number; fromLeft: boolean } | null;
}

/**
 * The messages between `left` and `right` (either way), oldest first.
 * Connections to other hosts are left out.
 */
export function wireMessages(pieces: readonly WirePiece[], left: string, right: string): WireMessage[] {
  const out: WireMessage[] = [];
  const state = new Map<number, DirectionState>();
  const closeRdb = (s: DirectionState): void => {
    if (s.rdb === null) return;
    const r = s.rdb;
    out.push({ kind: 'snapshot', fromLeft: r.fromLeft, sentUs: r.sentUs, arriveUs: r.arriveUs, bytes: r.bytes, label: `RDB ${humanBytes(r.bytes)}`, pieces: r.pieces });
    s.rdb = null;
    s.inRdb = false;
  };
  for (const p of pieces) {
    const between = (p.fromHost === left && p.toHost === right) || (p.fromHost === right && p.toHost === left);
    if (!between || left === right) continue;
    const fromLeft = p.fromHost === left;
    let s = state.get(p.socket);
    if (s === undefined) state.set(p.socket, (s = { inRdb: false, rdb: null }));
    // Keep-alive newlines may come first in the piece that carries a reply.
    const head = /^\n+[^\n]/.test(p.head) ? p.head.replace(/^\n+/, '') : p.head;
    const message = (kind: MessageKind, label: string): void => {
      out.push({ kind, fromLeft, sentUs: p.sentUs, arriveUs: p.arriveUs, bytes: p.bytes, label, pieces: 1 });
    };
    if (s.inRdb && !head.startsWith('*')) {
      const r = s.rdb!;
      r.arriveUs = p.arriveUs;
      r.bytes += p.bytes;
      r.pieces++;
      continue;
    }
    closeRdb(s);
    if (head.startsWith('*')) {
      const cmds = commandsIn(head);
      const first = cmds[0] ?? [];
      const name = (first[0] ?? '').toUpperCase();
      const more = cmds.length > 1 ? ` (+${cmds.length - 1} more)` : '';
      const isAck = name === 'REPLCONF' && /^(ACK|GETACK)$/i.test(first[1] ?? '');
      const kind: MessageKind = HANDSHAKE.has(name) && !isAck ? 'handshake' : 'stream';
      message(kind, words(first) + more);
      continue;
    }
    const line = head.slice(0, Math.max(0, head.indexOf('\r\n'))) || head.replace(/\n+$/, '');
    if (HANDSHAKE_REPLIES.test(line)) {
      message('handshake', cut(line, 64));
      const rest = head.slice(line.length + 2);
      if (line.startsWith('+FULLRESYNC') && rest.startsWith('$')) s.inRdb = true;
      if (s.inRdb) s.rdb = { sentUs: p.sentUs, arriveUs: p.arriveUs, bytes: 0, pieces: 0, fromLeft };
      continue;
    }
    if (/^\n+$/.test(head)) {
      message('handshake', 'newline (keep-alive)');
      continue;
    }
    if (head.startsWith('$')) {
      s.inRdb = true;
      s.rdb = { sentUs: p.sentUs, arriveUs: p.arriveUs, bytes: p.bytes, pieces: 1, fromLeft };
      continue;
    }
    message('other', `${humanBytes(p.bytes)}: ${visible(head.slice(0, 24))}`);
  }
  for (const s of state.values()) closeRdb(s);
  return out.sort((a, b) => a.sentUs - b.sentUs);
}
