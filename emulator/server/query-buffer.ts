import { allocSize } from './memory-estimate.js';

/**
 * A client's query buffer as Redis 7.0 sizes it (readQueryFromClient,
 * processMultibulkBuffer and clientsCronResizeQueryBuffer in src/
 * networking.c and src/server.c, over the sds allocator of src/sds.c):
 * how many bytes it holds (`qbuf`), how many more fit (`qbuf-free`), its
 * recent peak, and its allocation. The bytes themselves are in the
 * request parser; this is the bookkeeping CLIENT LIST, INFO and the
 * client-query-buffer-limit read.
 *
 * A read takes 16 KB at a time (PROTO_IOBUF_LEN) into a buffer first made
 * just big enough (20474 bytes once jemalloc rounds it), and as much as
 * fits once it has grown; a large argument (32 KB or more) gets a buffer
 * of its own size, and reads only what it still lacks. serverCron gives
 * back the room of a buffer idle for more than 2 s, and shrinks one far
 * bigger than its recent peak.
 */

/** PROTO_IOBUF_LEN. */
export const IOBUF_LEN = 16 * 1024;
/** PROTO_MBULK_BIG_ARG: a bulk at least this long is read into a buffer of its own. */
export const BIG_ARG_BYTES = 32 * 1024;
/** PROTO_RESIZE_THRESHOLD. */
const RESIZE_THRESHOLD = 32 * 1024;
/** SDS_MAX_PREALLOC: greedy growth doubles up to this, then adds it. */
const MAX_PREALLOC = 1024 * 1024;

/** The header of the sds type a string of `size` bytes needs (sdsReqType, never type 5 for a buffer that will grow). */
function header(size: number): number {
  if (size < 256) return 3;
  if (size < 65536) return 5;
  if (size < 2 ** 32) return 9;
  return 17;
}

/** The largest length the type for `size` can record (sdsTypeMaxSize). */
function typeMax(size: number): number {
  if (size < 256) return 255;
  if (size < 65536) return 65535;
  return Number.MAX_SAFE_INTEGER;
}

/** What an allocation made for a string of `size` bytes lets it hold: the allocator's rounding is kept. */
function usableFor(size: number): number {
  const h = header(size);
  return Math.min(allocSize(h + size + 1) - h - 1, typeMax(size));
}

export class QueryBuffer {
  /** sdslen: bytes held (during a command, all of the last read's bytes, the command's own too). */
  len = 0;
  /** sdsalloc: bytes it can hold without growing. sdsempty() holds 4. */
  alloc = 4;
  /** querybuf_peak: the most it held since serverCron last looked. */
  peak = 0;
  /** The large argument being read, or -1 (c->bulklen when it is a big one). */
  private bigArg = -1;

  /** qbuf-free. */
  get free(): number {
    return this.alloc - this.len;
  }

  /** sdsZmallocSize: the allocation behind the buffer, for tot-mem. */
  get allocatedBytes(): number {
    return allocSize(header(this.alloc) + this.alloc + 1);
  }

  /**
   * How much the next read may take (readlen): what a large argument
   * still lacks, else 16 KB into a new buffer, else all the room a greedy
   * growth leaves.
   */
  readLength(bigArgMissing: number): number {
    if (bigArgMissing > 0) {
      this.makeRoom(bigArgMissing, false);
      return bigArgMissing;
    }
    if (this.alloc < IOBUF_LEN) {
      this.makeRoom(IOBUF_LEN, false);
      return IOBUF_LEN;
    }
    this.makeRoom(IOBUF_LEN, true);
    return this.free;
  }

  /** A read of `n` bytes landed. */
  read(n: number): void {
    this.len += n;
    if (this.peak < this.len) this.peak = this.len;
  }

  /**
   * processMultibulkBuffer met the header of a large argument with `have`
   * of its bytes (and its CRLF) after it and nothing else: the buffer is
   * cut to start there and made room for the rest, exactly.
   */
  bigArgStarts(length: number, have: number): void {
    this.len = have;
    this.bigArg = length;
    this.makeRoom(length + 2 - have, false);
  }

  /** The large argument is whole: it takes the buffer, and a new one its size waits for the next (sdsnewlen then sdsclear). */
  bigArgTaken(length: number): void {
    this.bigArg = -1;
    this.len = 0;
    this.alloc = usableFor(length + 2);
  }

  /** After the commands of a read ran, what they did not consume stays (sdsrange). */
  consumed(remaining: number): void {
    this.len = remaining;
  }

  /**
   * clientsCronResizeQueryBuffer: with more than 4 KB spare, a client idle
   * for more than 2 s gets a buffer of exactly its content, and a buffer
   * over 32 KB that is more than twice its recent peak shrinks to the
   * peak (or the content, or the argument being read, if larger). The
   * peak then starts again.
   */
  cronResize(idleSeconds: number): void {
    if (this.free > 4096) {
      if (idleSeconds > 2) {
        this.alloc = this.len;
      } else if (this.alloc > RESIZE_THRESHOLD && this.alloc / 2 > this.peak) {
        let size = Math.max(this.len, this.peak);
        if (this.bigArg !== -1 && size < this.bigArg) size = this.bigArg;
        this.alloc = size;
      }
    }
    this.peak = this.len;
    if (this.bigArg !== -1 && this.bigArg > this.peak) this.peak = this.bigArg;
  }

  /** sdsMakeRoomFor: at least `add` bytes free, doubling (greedy) or exact. */
  private makeRoom(add: number, greedy: boolean): void {
    if (this.free >= add) return;
    let size = this.len + add;
    if (greedy) size = size < MAX_PREALLOC ? size * 2 : size + MAX_PREALLOC;
    this.alloc = usableFor(size);
  }
}
