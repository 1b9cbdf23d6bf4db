import { encodeCommand, encodedCommandPieces, putEncodedCommand } from '../resp/encode.js';
import { allocSize } from '../server/memory-estimate.js';

/**
 * The replication buffer of a primary (src/replication.c, Redis 7.0): one
 * list of blocks holding the stream, shared by the backlog and by every
 * replica's output. The backlog refers to the oldest block it keeps; each
 * replica refers to the block holding the next byte it has not been sent.
 * A block is freed only when nothing refers to it any more and the backlog
 * still holds at least `repl-backlog-size` bytes without it, so a slow
 * replica (one waiting for its RDB) makes the backlog grow past its size.
 *
 * Offsets are Redis's replication offsets: the stream's first byte ever is
 * offset 1, and `masterReplOffset` is the offset of the last byte written.
 */

/** PROTO_REPLY_CHUNK_BYTES: the smallest block. */
const CHUNK_BYTES = 16 * 1024;
/** sizeof(replBufBlock): refcount, id, repl_offset, size and used, padded. */
const BLOCK_HEADER_BYTES = 40;
/** sizeof(listNode): each block hangs on a list node, counted with it. */
const LIST_NODE_BYTES = 24;
/** REPL_BACKLOG_TRIM_BLOCKS_PER_CALL: blocks freed at most per trim. */
const TRIM_BLOCKS_PER_CALL = 64;

/** REPL_BACKLOG_INDEX_PER_BLOCKS: one index entry per this many blocks. */
const INDEX_PER_BLOCKS = 64;

/**
 * What a block holds its bytes in: a byte string, or a command kept as
 * its arguments (the bytes encodeCommand makes of them) until it is read.
 */
type Piece = string | readonly string[];

/**
 * One block of the shared buffer (replBufBlock). Its bytes are the byte
 * strings fed into it, and the commands fed as their arguments, kept as
 * they came while the block fills (no copy into bytes and back), framed
 * when a replica reads them, and joined into one string once read or once
 * the block is full, so that a kept backlog is a few long strings rather
 * than the collector's millions of small ones.
 */
export class BufferBlock {
  /** The pieces fed since the block was last joined, and the offset in the block of each one's first byte. */
  private pieces: Piece[] = [];
  private starts: number[] = [];
  /** Bytes written so far. */
  used = 0;
  refcount = 0;
  /** Whether the block has an entry in the backlog's index. */
  indexed = false;
  constructor(
    /** The block's number, counted from the first one the server made. */
    readonly id: number,
    /** Replication offset of the block's first byte. */
    public replOffset: number,
    /** Bytes the block can hold: its allocation minus the header. */
    readonly size: number,
  ) {}

  /** Appends `n` bytes of the byte string `s` from `from` to the end of the block. */
  append(s: string, from: number, n: number): void {
    this.pieces.push(from === 0 && n === s.length ? s : s.slice(from, from + n));
    this.starts.push(this.used);
    this.used += n;
    if (this.used === this.size && this.pieces.length > 1) this.join();
  }

  /** Appends a command as its arguments: `n` bytes, the length of its framing (encodedCommandLength). */
  appendCommand(argv: readonly string[], n: number): void {
    this.pieces.push(argv);
    this.starts.push(this.used);
    this.used += n;
    if (this.used === this.size && this.pieces.length > 1) this.join();
  }

  /** Piece `k` as bytes: a command is framed, and its string takes its place. */
  private framed(k: number): string {
    const p = this.pieces[k]!;
    if (typeof p === 'string') return p;
    const s = encodeCommand(p);
    this.pieces[k] = s;
    return s;
  }

  /**
   * The bytes from `pos` to what is written, as a byte string. The pieces
   * read from the start of one on are joined into one string, which takes
   * their place in the block: replicas read what was written since they
   * last read, so the block comes to hold one piece per read rather than
   * one per write, and what a replica is sent is one flat string, made
   * from the commands' arguments in one join, rather than a chain of
   * hundreds for the collector to keep while it travels.
   */
  bytesFrom(pos: number): string {
    const starts = this.starts;
    // Readers ask for what was written since they last read: search from the end.
    let i = starts.length - 1;
    while (i > 0 && starts[i]! > pos) i--;
    if (i < 0) return '';
    const last = this.pieces.length - 1;
    if (i === last) return pos === starts[i] ? this.framed(i) : this.framed(i).slice(pos - starts[i]!);
    const from = pos === starts[i] ? i : i + 1;
    const joined = from === last ? this.framed(from) : this.joinFrom(from);
    return from === i ? joined : this.framed(i).slice(pos - starts[i]!) + joined;
  }

  /** Joins the pieces from `from` to the last into one string, which takes their place. */
  private joinFrom(from: number): string {
    const pieces = this.pieces;
    // The list of parts is made at its size at once rather than grown.
    let count = 0;
    for (let k = from; k < pieces.length; k++) {
      const p = pieces[k]!;
      count += typeof p === 'string' ? 1 : encodedCommandPieces(p);
    }
    const parts = new Array<string>(count);
    let at = 0;
    for (let k = from; k < pieces.length; k++) {
      const p = pieces[k]!;
      if (typeof p === 'string') parts[at++] = p;
      else at = putEncodedCommand(p, parts, at);
    }
    const joined = parts.join('');
    pieces.length = from + 1;
    pieces[from] = joined;
    this.starts.length = from + 1;
    return joined;
  }

  /** The strings the block's bytes are held in, for tests. */
  get pieceCount(): number {
    return this.pieces.length;
  }

  private join(): void {
    this.joinFrom(0);
  }
}

/** Where a reader (the backlog, a replica) stands in the buffer. */
export interface BufferCursor {
  block: BufferBlock | null;
  /** Position inside the block of the next byte to send. */
  pos: number;
}

export class ReplicationBuffer {
  private blocks: BufferBlock[] = [];
  /** Index of the first live block in `blocks` (freed blocks are dropped lazily). */
  private head = 0;
  /** The backlog's reference: the oldest block it keeps. */
  private backlogBlock: BufferBlock | null = null;
  /** Bytes the backlog holds (repl_backlog->histlen). */
  histlen = 0;
  /** Offset of the first byte the backlog holds (repl_backlog->offset). */
  firstByteOffset: number;
  /** server.repl_buffer_mem: every block's allocation and list node. */
  memoryBytes = 0;
  /** Blocks added since the last index entry, and entries in the index. */
  private unindexed = 0;
  indexEntries = 0;
  /** The replicas' cursors, fed as the stream grows. */
  private readonly readers = new Set<BufferCursor>();
  /** Readers not yet placed in the buffer: the next byte fed places them. */
  private unplaced = 0;
  /** The next block's number. */
  private nextBlockId = 0;
  /** Told each time a block is added (replicas' output buffer limits are checked then). */
  onBlockAdded: (() => void) | null = null;

  constructor(
    /** The offset of the last byte of the stream so far (master_repl_offset). */
    public masterReplOffset: number,
    /** repl-backlog-size, read each time it matters (CONFIG SET resizes). */
    private readonly backlogSize: () => number,
  ) {
    this.firstByteOffset = masterReplOffset + 1;
  }

  private get tail(): BufferBlock | null {
    return this.blocks.length > this.head ? this.blocks[this.blocks.length - 1]! : null;
  }

  /** Starts feeding a reader (a replica that now takes the stream) from the next byte written. */
  attach(cursor: BufferCursor): void {
    if (this.readers.has(cursor)) return;
    this.readers.add(cursor);
    if (cursor.block === null) this.unplaced++;
  }

  /**
   * Appends bytes that fit in the tail block when nothing else is to be
   * done (no reader to place): the common case of a small command, where
   * feeding it in pieces would come to the same. False when it does not apply.
   */
  tryAppend(bytes: string): boolean {
    const tail = this.tail;
    if (tail === null || this.unplaced !== 0 || this.backlogBlock === null || tail.size - tail.used < bytes.length) return false;
    tail.append(bytes, 0, bytes.length);
    this.masterReplOffset += bytes.length;
    this.histlen += bytes.length;
    return true;
  }

  /**
   * tryAppend for a command kept as its arguments (`n` bytes once framed),
   * after `select` (a SELECT's bytes, or '').
   */
  tryAppendCommand(select: string, argv: readonly string[], n: number): boolean {
    const tail = this.tail;
    const total = select.length + n;
    if (tail === null || this.unplaced !== 0 || this.backlogBlock === null || tail.size - tail.used < total) return false;
    if (select.length !== 0) tail.append(select, 0, select.length);
    tail.appendCommand(argv, n);
    this.masterReplOffset += total;
    this.histlen += total;
    return true;
  }

  /**
   * getClientOutputBufferMemoryUsage for a replica: every block from the
   * one it stands in to the last, whole, with their headers and list nodes.
   */
  outputUsage(cursor: BufferCursor): number {
    const cur = cursor.block;
    const last = this.tail;
    if (cur === null || last === null) return 0;
    return last.replOffset + last.size - cur.replOffset + (BLOCK_HEADER_BYTES + LIST_NODE_BYTES) * (last.id - cur.id + 1);
  }

  /** used_blocks_of_repl_buf: the blocks from the one a reader stands in to the last. */
  usedBlocks(cursor: BufferCursor): number {
    const cur = cursor.block;
    const last = this.tail;
    return cur === null || last === null ? 0 : last.id - cur.id + 1;
  }

  /**
   * Appends bytes of the stream (feedReplicationBuffer): into the tail
   * block while it has room, then into new blocks of at least 16 KB and at
   * most a sixteenth of the backlog, as jemalloc sizes them.
   */
  feed(bytes: string): void {
    let off = 0;
    let len = bytes.length;
    while (len > 0) {
      let startBlock: BufferBlock | null = null;
      let startPos = 0;
      let created: BufferBlock | null = null;
      const tail = this.tail;
      if (tail !== null && tail.size > tail.used) {
        startBlock = tail;
        startPos = tail.used;
        const n = Math.min(tail.size - tail.used, len);
        tail.append(bytes, off, n);
        off += n;
        len -= n;
        this.masterReplOffset += n;
        this.histlen += n;
      }
      if (len > 0) {
        const limit = Math.max(Math.floor(this.backlogSize() / 16), CHUNK_BYTES);
        const want = Math.min(Math.max(len, CHUNK_BYTES), limit);
        const usable = allocSize(want + BLOCK_HEADER_BYTES);
        created = new BufferBlock(this.nextBlockId++, this.masterReplOffset + 1, usable - BLOCK_HEADER_BYTES);
        const n = Math.min(created.size, len);
        created.append(bytes, off, n);
        this.blocks.push(created);
        this.memoryBytes += usable + LIST_NODE_BYTES;
        if (startBlock === null) {
          startBlock = created;
          startPos = 0;
        }
        off += n;
        len -= n;
        this.masterReplOffset += n;
        this.histlen += n;
      }
      if (this.unplaced !== 0) {
        for (const r of this.readers) {
          if (r.block === null) {
            r.block = startBlock;
            r.pos = startPos;
            startBlock!.refcount++;
          }
        }
        this.unplaced = 0;
      }
      if (this.backlogBlock === null) {
        this.backlogBlock = startBlock;
        startBlock!.refcount++;
      }
      if (created !== null) {
        if (++this.unindexed >= INDEX_PER_BLOCKS) {
          created.indexed = true;
          this.indexEntries++;
          this.unindexed = 0;
        }
        this.trim();
        this.onBlockAdded?.();
      }
    }
  }

  /**
   * incrementalTrimReplicationBacklog: frees the oldest blocks while the
   * backlog holds more than its size, nothing else refers to them, and what
   * stays still covers the size. Then recomputes the first byte's offset.
   */
  /** beforeSleep's trim: ten times the blocks, to free a grown backlog soon (src/server.c). */
  trimBeforeSleep(): void {
    this.trim(10 * TRIM_BLOCKS_PER_CALL);
  }

  trim(maxBlocks = TRIM_BLOCKS_PER_CALL): void {
    let trimmed = 0;
    const size = this.backlogSize();
    while (this.histlen > size && trimmed < maxBlocks) {
      if (this.blocks.length - this.head <= 1) break;
      const first = this.blocks[this.head]!;
      if (first.refcount !== 1) break;
      if (this.histlen - first.size <= size) break;
      first.refcount--;
      trimmed++;
      this.histlen -= first.size;
      const next = this.blocks[this.head + 1]!;
      this.backlogBlock = next;
      next.refcount++;
      this.memoryBytes -= first.size + BLOCK_HEADER_BYTES + LIST_NODE_BYTES;
      if (first.indexed) this.indexEntries--;
      this.blocks[this.head] = undefined as unknown as BufferBlock;
      this.head++;
    }
    if (this.head > 64 && this.head * 2 > this.blocks.length) {
      this.blocks = this.blocks.slice(this.head);
      this.head = 0;
    }
    this.firstByteOffset = this.masterReplOffset - this.histlen + 1;
  }

  /**
   * The bytes a reader has not been sent yet, up to the end of the stream;
   * the cursor moves to the end and lets go of the blocks behind it
   * (_writeToClient for a replica).
   */
  take(cursor: BufferCursor): string {
    if (cursor.block === null) return '';
    let block: BufferBlock = cursor.block;
    let out = '';
    for (;;) {
      if (block.used > cursor.pos) out += this.bytesOf(block, cursor.pos);
      cursor.pos = block.used;
      if (block === this.tail) return out;
      const next: BufferBlock = this.blocks[this.indexOf(block) + 1]!;
      block.refcount--;
      next.refcount++;
      cursor.block = next;
      cursor.pos = 0;
      block = next;
      this.trim();
    }
  }

  /**
   * The last piece of a block read as a string: replicas at the same place
   * in the stream are sent the same bytes, which are made once.
   */
  private lastRead: { block: BufferBlock; from: number; to: number; bytes: string } | null = null;

  private bytesOf(block: BufferBlock, from: number): string {
    const r = this.lastRead;
    if (r !== null && r.block === block && r.from === from && r.to === block.used) return r.bytes;
    const bytes = block.bytesFrom(from);
    this.lastRead = { block, from, to: block.used, bytes };
    return bytes;
  }

  /**
   * A reader that joins another's BGSAVE shares its place in the stream
   * (copyReplicaOutputBuffer).
   */
  copyCursor(from: BufferCursor, to: BufferCursor): void {
    if (from.block === null) {
      this.attach(to);
      return;
    }
    this.readers.add(to);
    to.block = from.block;
    to.pos = from.pos;
    to.block.refcount++;
  }

  /** Whether a reader has bytes not yet sent (clientHasPendingReplies for a replica). */
  hasPending(cursor: BufferCursor): boolean {
    if (cursor.block === null) return false;
    const tail = this.tail!;
    return cursor.block !== tail || cursor.pos < tail.used;
  }

  /** A reader goes away (freeReplicaReferencedReplBuffer). */
  detach(cursor: BufferCursor): void {
    if (!this.readers.delete(cursor)) return;
    if (cursor.block === null) this.unplaced--;
    else {
      cursor.block.refcount--;
      cursor.block = null;
      cursor.pos = 0;
      this.trim();
    }
  }

  /**
   * A cursor for a partial resync from `offset` (addReplyReplicationBacklog):
   * at the byte of that offset, holding its block. The offset must lie
   * within the backlog. Returns the number of bytes it will be sent.
   */
  cursorAt(offset: number, cursor: BufferCursor): number {
    this.attach(cursor);
    if (this.histlen === 0) return 0;
    for (let i = this.head; i < this.blocks.length; i++) {
      const b = this.blocks[i]!;
      if (b.replOffset + b.used >= offset) {
        b.refcount++;
        cursor.block = b;
        cursor.pos = offset - b.replOffset;
        this.unplaced--;
        break;
      }
    }
    return this.histlen - (offset - this.firstByteOffset);
  }

  /**
   * rebaseReplicationBuffer: the stream so far is moved to start after
   * `base` bytes (a primary restarted on an RDB that had come that far).
   */
  rebase(base: number): void {
    for (let i = this.head; i < this.blocks.length; i++) this.blocks[i]!.replOffset += base;
    this.masterReplOffset += base;
    this.firstByteOffset = this.masterReplOffset - this.histlen + 1;
  }

  /** Blocks alive, for tests and the panels. */
  get blockCount(): number {
    return this.blocks.length - this.head;
  }

  /** Frees every block (freeReplicationBacklog; no replica may hold one). */
  clear(): void {
    this.blocks = [];
    this.head = 0;
    this.backlogBlock = null;
    this.memoryBytes = 0;
    this.readers.clear();
    this.unplaced = 0;
    this.lastRead = null;
  }

  private indexOf(block: BufferBlock): number {
    // Readers are nearly always at the tail: search from the end.
    for (let i = this.blocks.length - 1; i >= this.head; i--) if (this.blocks[i] === block) return i;
    throw new Error('replication buffer: a cursor refers to a freed block');
  }
}
