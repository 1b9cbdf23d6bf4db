import { bytesToArray } from '../../resp/bytes.js';
import { ListpackBuilder, listpackEntrySize } from './listpack.js';
import { lzfCompress } from './lzf.js';

/**
 * How Redis 7.0 splits a list into quicklist nodes (src/quicklist.c).
 *
 * The emulator keeps a list as one deque, so the node boundaries are
 * derived: they are the ones a list gets when every element is pushed at
 * the tail, which is also how a real server rebuilds a list from anything
 * but a quicklist-2 RDB. A list grown at the head, or edited in the
 * middle, has other boundaries on a real server; its elements are the same.
 *
 * A node is a listpack ("packed") that takes elements while
 * _quicklistNodeAllowInsert says so, or a "plain" node holding one element
 * of at least the packed threshold as raw bytes.
 */

/** The byte limits list-max-listpack-size -1 .. -5 stand for. */
const SIZE_LEVELS = [4096, 8192, 16384, 32768, 65536];
/** Whatever the fill, a node with a count limit stops growing past this size. */
const SIZE_SAFETY_LIMIT = 8192;
/** What _quicklistNodeAllowInsert adds to an element's length to estimate its entry. */
const SIZE_ESTIMATE_OVERHEAD = 8;
/** Nodes smaller than this are never compressed. */
const MIN_COMPRESS_BYTES = 48;
/** Compression must save more than this many bytes to be kept. */
const MIN_COMPRESS_IMPROVE = 8;
/** An empty listpack: header and terminator. */
const EMPTY_LISTPACK_BYTES = 7;

export const CONTAINER_PLAIN = 1;
export const CONTAINER_PACKED = 2;

export interface QuicklistNode {
  container: typeof CONTAINER_PLAIN | typeof CONTAINER_PACKED;
  /** The listpack, or the raw element of a plain node. */
  blob: Uint8Array;
  /** The LZF form of the blob when list-compress-depth compresses this node. */
  compressed: Uint8Array | null;
  count: number;
}

/** Whether a node of `bytes` bytes and `count` elements takes an element of `len` bytes. */
function allowInsert(bytes: number, count: number, fill: number, len: number): boolean {
  const newSize = bytes + len + SIZE_ESTIMATE_OVERHEAD;
  if (fill < 0) {
    const level = -fill - 1;
    if (level < SIZE_LEVELS.length && newSize <= SIZE_LEVELS[level]!) return true;
  }
  if (newSize > SIZE_SAFETY_LIMIT) return false;
  return count < fill;
}

export interface QuicklistOptions {
  /** list-max-listpack-size. */
  fill: number;
  /** list-compress-depth: this many nodes at each end stay uncompressed; 0 compresses none. */
  compressDepth: number;
  /** Elements of at least this many bytes go in plain nodes (DEBUG QUICKLIST-PACKED-THRESHOLD). */
  packedThreshold: number;
}

/** Where a node's elements sit in the list, and the size of its listpack (or plain element). */
export interface NodeSpan {
  start: number;
  count: number;
  /** lpBytes of a packed node; the element's length for a plain one. */
  bytes: number;
  plain: boolean;
}

/** The nodes of a list built by pushing `items` at the tail, without building them. */
export function quicklistLayout(items: Iterable<string>, opts: QuicklistOptions): NodeSpan[] {
  const spans: NodeSpan[] = [];
  let open: NodeSpan | null = null;
  let index = 0;
  for (const item of items) {
    const len = item.length;
    if (len >= opts.packedThreshold) {
      open = null;
      spans.push({ start: index++, count: 1, bytes: len, plain: true });
      continue;
    }
    if (open !== null && !allowInsert(open.bytes, open.count, opts.fill, len)) open = null;
    if (open === null) {
      open = { start: index, count: 0, bytes: EMPTY_LISTPACK_BYTES, plain: false };
      spans.push(open);
    }
    open.bytes += listpackEntrySize(item);
    open.count++;
    index++;
  }
  return spans;
}

/** The nodes of a list built by pushing `items` at the tail, one by one. */
export function quicklistNodes(items: readonly string[], opts: QuicklistOptions): QuicklistNode[] {
  const nodes = quicklistLayout(items, opts).map((span) => buildNode(items, span));
  if (opts.compressDepth > 0 && nodes.length >= opts.compressDepth * 2) {
    for (let i = opts.compressDepth; i < nodes.length - opts.compressDepth; i++) nodes[i]!.compressed = compressedForm(nodes[i]!.blob);
  }
  return nodes;
}

function buildNode(items: readonly string[], span: NodeSpan): QuicklistNode {
  if (span.plain) return { container: CONTAINER_PLAIN, blob: bytesToArray(items[span.start]!), compressed: null, count: 1 };
  const b = new ListpackBuilder();
  for (let i = span.start; i < span.start + span.count; i++) b.append(items[i]!);
  return { container: CONTAINER_PACKED, blob: b.finish(), compressed: null, count: span.count };
}

/**
 * Whether a node more than list-compress-depth nodes from both ends is
 * compressed, and to what: __quicklistCompressNode compresses a node as it
 * leaves the uncompressed tail, if it is big enough and compression saves
 * enough, and then nothing changes it while the list only grows at the tail.
 */
export function compressedForm(blob: Uint8Array): Uint8Array | null {
  const size = blob.length;
  if (size < MIN_COMPRESS_BYTES) return null;
  const packed = lzfCompress(blob, size);
  if (packed === null || packed.length + MIN_COMPRESS_IMPROVE >= size) return null;
  return packed;
}
