/**
 * A process's own write buffer on an open file, like the buffer stdio keeps
 * behind a FILE*: fwrite() copies into it, and only when it is full, flushed
 * or closed do the bytes reach the operating system with write(). Bytes
 * still here die with the process.
 *
 * `sink` is the write system call: it takes bytes, returns how many it took
 * (fewer on a nearly full disk) and throws when it can take none.
 */
export type WriteSink = (bytes: Uint8Array) => number;

export class ProcessBuffer {
  private readonly data: Uint8Array;
  /** Bytes waiting in the buffer. */
  length = 0;

  constructor(readonly capacityBytes: number) {
    this.data = new Uint8Array(capacityBytes);
  }

  /**
   * Takes all of `bytes` or throws. When they do not fit beside what is
   * already buffered, the buffer is flushed first; writes as large as the
   * buffer go straight to the sink, as stdio does.
   */
  write(bytes: Uint8Array, sink: WriteSink): number {
    const n = bytes.length;
    if (this.length + n > this.capacityBytes) this.flush(sink);
    if (n >= this.capacityBytes) {
      writeAll(bytes, sink);
    } else {
      this.data.set(bytes, this.length);
      this.length += n;
    }
    return n;
  }

  /**
   * Moves every buffered byte to the sink. When the sink fails part way, the
   * bytes it took are gone from the buffer and the rest stay for a retry.
   */
  flush(sink: WriteSink): void {
    let done = 0;
    try {
      while (done < this.length) done += takeSome(this.data.subarray(done, this.length), sink);
    } finally {
      if (done > 0) {
        this.data.copyWithin(0, done, this.length);
        this.length -= done;
      }
    }
  }

  /** Forgets the buffered bytes (the process died); returns how many. */
  drop(): number {
    const n = this.length;
    this.length = 0;
    return n;
  }

  /** A copy of the buffered bytes. */
  contents(): Uint8Array {
    return this.data.slice(0, this.length);
  }

  /** Puts bytes back into an empty buffer (restoring a checkpoint). */
  load(bytes: Uint8Array): void {
    if (bytes.length > this.capacityBytes) throw new RangeError('more buffered bytes than the buffer holds');
    this.data.set(bytes, 0);
    this.length = bytes.length;
  }
}

/** Writes every byte through the sink, which throws when it cannot go on. */
export function writeAll(bytes: Uint8Array, sink: WriteSink): void {
  let done = 0;
  while (done < bytes.length) done += takeSome(bytes.subarray(done), sink);
}

function takeSome(bytes: Uint8Array, sink: WriteSink): number {
  const n = sink(bytes);
  // A sink that takes nothing without throwing would loop forever.
  if (!(n > 0)) throw new Error(`write sink took ${n} of ${bytes.length} bytes without an error`);
  return n;
}
