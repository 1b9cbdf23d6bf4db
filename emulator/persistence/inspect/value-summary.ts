import { stringOf, type Value } from '../../keyspace/values.js';
import { formatDouble } from '../../numbers/double.js';
import { repr } from '../../resp/bytes.js';

/**
 * A value in a line: its size and its first elements, quoted as redis-cli
 * quotes them, so nothing a file holds is ever shown as it is (no markup,
 * no control bytes). A large value costs no more than its first elements.
 */
export interface ValueSummary {
  /** Bytes of a string; elements of a collection. */
  readonly size: number;
  readonly preview: string;
}

/** Elements shown of a collection. */
export const PREVIEW_ELEMENTS = 4;
/** Bytes of a string, or of one element, quoted before it is cut. */
export const PREVIEW_BYTES = 64;

/** A byte string quoted as redis-cli quotes it, cut after PREVIEW_BYTES bytes with an ellipsis. */
export function quoteCut(s: string, max = PREVIEW_BYTES): string {
  return s.length <= max ? repr(s) : repr(s.slice(0, max)) + '…';
}

export function summarizeValue(v: Value): ValueSummary {
  if (typeof v === 'string' || v.type === 'string') {
    const s = stringOf(v);
    return { size: s.length, preview: quoteCut(s) };
  }
  switch (v.type) {
    case 'list':
      // Deque.slice does not clamp its end: ask for no more than the list holds.
      return collection(v.items.length, 'item', v.items.slice(0, Math.min(PREVIEW_ELEMENTS, v.items.length)).map((e) => quoteCut(e)));
    case 'hash':
      return collection(v.map.size, 'field', first(v.map, ([f, val]) => `${quoteCut(f)}=${quoteCut(val)}`));
    case 'set':
      return collection(v.set.size, 'member', first(v.set, (m) => quoteCut(m)));
    case 'zset':
      return collection(v.size, 'member', first(v.list, (n) => `${quoteCut(n.member)} ${formatDouble(n.score)}`));
    case 'stream':
      return { size: v.length, preview: `${v.length} entr${v.length === 1 ? 'y' : 'ies'} (kept as stored: the emulator has no stream commands)` };
  }
}

function first<T>(items: Iterable<T>, show: (item: T) => string): string[] {
  const out: string[] = [];
  for (const item of items) {
    if (out.length === PREVIEW_ELEMENTS) break;
    out.push(show(item));
  }
  return out;
}

function collection(size: number, noun: string, shown: string[]): ValueSummary {
  const head = `${size} ${noun}${size === 1 ? '' : 's'}`;
  const more = size > shown.length ? ', …' : '';
  return { size, preview: `${head}: ${shown.join(', ')}${more}` };
}
