import type { Random } from '../sim/random.js';

const PLACEHOLDER = '__rand_int__';
const DIGITS = PLACEHOLDER.length;

/**
 * The bytes a benchmark connection sends for each flight: the request
 * repeated -P times, built once, as the real tool keeps it in its output
 * buffer. Under -r every __rand_int__ is overwritten in place with a
 * 12-digit zero-padded random number before each flight, a different one
 * for each occurrence; the buffer never changes size.
 *
 *   const b = RequestBuffer.build('*2\r\n$3\r\nGET\r\n$16\r\nkey:__rand_int__\r\n', 1, true);
 *   b.randomize(random, 1000);   // key:000000000042
 */
export class RequestBuffer {
  private constructor(
    readonly bytes: Uint8Array,
    /** Where each placeholder starts, in order. */
    private readonly offsets: Int32Array,
  ) {}

  /** `request` is a byte string; `findPlaceholders` is whether -r was given. */
  static build(request: string, pipeline: number, findPlaceholders: boolean): RequestBuffer {
    const one = request.length;
    const bytes = new Uint8Array(one * pipeline);
    for (let i = 0; i < one; i++) bytes[i] = request.charCodeAt(i);
    for (let k = 1; k < pipeline; k++) bytes.copyWithin(k * one, 0, one);
    const found: number[] = [];
    if (findPlaceholders) {
      for (let k = 0; k < pipeline; k++) {
        for (let at = request.indexOf(PLACEHOLDER); at !== -1; at = request.indexOf(PLACEHOLDER, at + DIGITS)) {
          found.push(k * one + at);
        }
      }
    }
    return new RequestBuffer(bytes, Int32Array.from(found));
  }

  /** Another buffer with the same content, for a connection that patches its own. */
  copy(): RequestBuffer {
    return new RequestBuffer(this.bytes.slice(), this.offsets);
  }

  get hasPlaceholders(): boolean {
    return this.offsets.length !== 0;
  }

  /** Draws a number below `keyspaceLen` (0 when it is 0) for each placeholder and writes its digits. */
  randomize(random: Random, keyspaceLen: number): void {
    const bytes = this.bytes;
    const offsets = this.offsets;
    for (let i = 0; i < offsets.length; i++) {
      let r = keyspaceLen !== 0 ? random.below(keyspaceLen) : 0;
      for (let p = offsets[i]! + DIGITS - 1, n = 0; n < DIGITS; n++, p--) {
        bytes[p] = 48 + (r % 10);
        r = Math.floor(r / 10);
      }
    }
  }
}
