import { allocSize } from './memory-estimate.js';

/**
 * A client's output as Redis 7.0 holds it (src/networking.c): a static
 * buffer (c->buf, `rbs` bytes, filled up to `obl`) and, once that is full,
 * a list of blocks (c->reply, `oll` of them) each at least 16 KB, whose
 * allocated sizes make `omem`, the figure output-buffer limits are held
 * against. Replies are appended as they are made and leave when the
 * socket takes them; between the two they are counted here exactly as
 * Redis counts them, so CLIENT LIST and the limits see what Redis would.
 *
 * The bytes themselves are byte strings kept in pieces, never joined into
 * one string: a reply of any size (a 600 MB EXEC) is a list of pieces, and
 * a large bulk string is a piece of its own, shared with the value it came
 * from rather than copied.
 */

/** PROTO_REPLY_CHUNK_BYTES: the static buffer's size, and a block's smallest. */
export const REPLY_CHUNK_BYTES = 16 * 1024;
/** PROTO_REPLY_MIN_BYTES: the static buffer never shrinks below this. */
const REPLY_MIN_BYTES = 1024;
/** sizeof(clientReplyBlock): size and used, before the bytes. */
const BLOCK_HEADER = 16;
/** sizeof(listNode) + sizeof(clientReplyBlock), counted per block in omem. */
const BLOCK_OVERHEAD = 24 + BLOCK_HEADER;
/** Small replies are gathered into pieces of about this size. */
const PIECE_BYTES = 64 * 1024;

export class ReplyBuffer {
  /** rbs: the static buffer's usable size (buf_usable_size). */
  bufSize = allocSize(REPLY_CHUNK_BYTES);
  /** obl: bytes in the static buffer (bufpos). */
  bufPos = 0;
  /** rbp: the most the static buffer held since the peak was last reset (buf_peak). */
  bufPeak = this.bufSize;
  /**
   * When the peak was last reset, in ms; createClient stores the time in
   * seconds there, so the first serverCron visit always resets it.
   */
  peakResetMs: number;
  /** Bytes of the first place with unsent data already written (sentlen). */
  private sentLen = 0;
  /** The reply list: each block's allocated and used bytes. */
  private sizes: number[] = [];
  private used: number[] = [];
  private first = 0;
  /** The blocks' allocated bytes (reply_bytes). */
  replyBytes = 0;
  /** The bytes not yet taken, in order. */
  private pieces: string[] = [];
  private head = 0;
  /** Bytes of pieces[head] already taken. */
  private headOffset = 0;
  /** Small writes gathered before they become a piece. */
  private gather = '';
  /** Bytes waiting to leave (including raw ones, which are not counted in omem). */
  pending = 0;
  /**
   * The last write left bytes the socket could not take: Redis then
   * waits for the socket to be writable (CLIENT LIST events=rw).
   */
  waitingForSocket = false;

  constructor(nowS: number) {
    this.peakResetMs = nowS;
  }

  /** oll: blocks in the reply list. */
  get blocks(): number {
    return this.sizes.length - this.first;
  }

  /** omem (getClientOutputBufferMemoryUsage for a normal or pubsub client). */
  get memoryBytes(): number {
    return this.replyBytes + BLOCK_OVERHEAD * this.blocks;
  }

  /**
   * Called when a block is added to the list: the moment Redis checks the
   * output-buffer limits (closeClientOnOutputBufferLimitReached).
   */
  onNewBlock: (() => void) | null = null;

  /**
   * Appends reply bytes (_addReplyToBufferOrList): into the static buffer
   * while the list is empty, the rest into the last block's room, then a
   * new block.
   */
  add(s: string): void {
    let len = s.length;
    if (len === 0) return;
    this.store(s);
    if (this.first === this.sizes.length) {
      const n = Math.min(this.bufSize - this.bufPos, len);
      this.bufPos += n;
      if (this.bufPeak < this.bufPos) this.bufPeak = this.bufPos;
      len -= n;
      if (len === 0) return;
    } else {
      const tail = this.sizes.length - 1;
      const n = Math.min(this.sizes[tail]! - this.used[tail]!, len);
      this.used[tail]! += n;
      len -= n;
      if (len === 0) return;
    }
    const size = allocSize(Math.max(len, REPLY_CHUNK_BYTES) + BLOCK_HEADER) - BLOCK_HEADER;
    this.sizes.push(size);
    this.used.push(len);
    this.replyBytes += size;
    this.onNewBlock?.();
  }

  /**
   * Bytes that go out in order with the replies but are not replies (a
   * replica's stream, counted by the replication buffer instead).
   */
  addRaw(s: string): void {
    if (s.length === 0) return;
    this.store(s);
    this.rawPending += s.length;
  }

  /** Raw bytes among the pending ones, in the order they came: taken as they are reached. */
  private rawPending = 0;

  private store(s: string): void {
    this.pending += s.length;
    if (s.length >= PIECE_BYTES / 4) {
      if (this.gather.length !== 0) {
        this.pieces.push(this.gather);
        this.gather = '';
      }
      this.pieces.push(s);
      return;
    }
    this.gather += s;
    if (this.gather.length >= PIECE_BYTES) {
      this.pieces.push(this.gather);
      this.gather = '';
    }
  }

  /**
   * Takes up to `max` bytes for the socket, as pieces, and counts them as
   * written (_writevToClient): the static buffer first, then whole blocks,
   * which are freed as they are emptied.
   */
  take(max: number): string[] {
    const out: string[] = [];
    let want = Math.min(max, this.pending);
    const taken = want;
    if (want === 0) return out;
    if (this.head === this.pieces.length && this.gather.length !== 0) {
      this.pieces.push(this.gather);
      this.gather = '';
    }
    while (want > 0) {
      if (this.head === this.pieces.length) {
        this.pieces.push(this.gather);
        this.gather = '';
      }
      const p = this.pieces[this.head]!;
      const left = p.length - this.headOffset;
      if (left <= want) {
        out.push(this.headOffset === 0 ? p : p.slice(this.headOffset));
        want -= left;
        this.head++;
        this.headOffset = 0;
      } else {
        out.push(p.slice(this.headOffset, this.headOffset + want));
        this.headOffset += want;
        want = 0;
      }
    }
    if (this.head > 64 && this.head * 2 > this.pieces.length) {
      this.pieces = this.pieces.slice(this.head);
      this.head = 0;
    }
    this.pending -= taken;
    this.written(taken);
    this.waitingForSocket = this.pending !== 0;
    return out;
  }

  /** Everything waiting, as pieces. */
  takeAll(): string[] {
    return this.take(this.pending);
  }

  /** The accounting of `n` bytes leaving, raw bytes included (they are not in the buffer or the blocks). */
  private written(n: number): void {
    let remaining = n;
    const raw = Math.min(this.rawPending, remaining);
    this.rawPending -= raw;
    remaining -= raw;
    if (remaining > 0 && this.bufPos > 0) {
      const inBuf = this.bufPos - this.sentLen;
      if (remaining >= inBuf) {
        this.bufPos = 0;
        this.sentLen = 0;
        remaining -= inBuf;
      } else {
        this.sentLen += remaining;
        return;
      }
    }
    while (remaining > 0 && this.first < this.sizes.length) {
      const inBlock = this.used[this.first]! - this.sentLen;
      if (remaining < inBlock) {
        this.sentLen += remaining;
        return;
      }
      remaining -= inBlock;
      this.replyBytes -= this.sizes[this.first]!;
      this.first++;
      this.sentLen = 0;
    }
    if (this.first === this.sizes.length && this.first !== 0) {
      this.sizes = [];
      this.used = [];
      this.first = 0;
    }
  }

  /** Drops everything not yet written (a client closed at once). */
  clear(): void {
    this.pieces = [];
    this.head = 0;
    this.headOffset = 0;
    this.gather = '';
    this.pending = 0;
    this.rawPending = 0;
    this.bufPos = 0;
    this.sentLen = 0;
    this.sizes = [];
    this.used = [];
    this.first = 0;
    this.replyBytes = 0;
  }

  /**
   * clientsCronResizeOutputBuffer: the static buffer halves (to no less
   * than its recent peak and 1 KB) when the peak stayed under half of it,
   * and doubles (up to 16 KB) when the peak filled it; the peak restarts
   * from what the buffer holds every `peakResetTimeMs` (-1: never).
   */
  cronResize(nowMs: number, peakResetTimeMs: number, enabled: boolean): void {
    if (!enabled) return;
    let newSize = 0;
    const shrinkTo = Math.floor(this.bufSize / 2);
    const growTo = this.bufSize * 2;
    if (shrinkTo >= REPLY_MIN_BYTES && this.bufPeak < shrinkTo) newSize = Math.max(REPLY_MIN_BYTES, this.bufPeak + 1);
    else if (growTo < REPLY_CHUNK_BYTES * 2 && this.bufPeak === this.bufSize) newSize = Math.min(REPLY_CHUNK_BYTES, growTo);
    if (peakResetTimeMs >= 0 && nowMs - this.peakResetMs >= peakResetTimeMs) {
      this.bufPeak = this.bufPos;
      this.peakResetMs = nowMs;
    }
    if (newSize !== 0) this.bufSize = allocSize(newSize);
  }
}
