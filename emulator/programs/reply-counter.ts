/**
 * Finds where complete RESP replies end in a byte stream without building
 * them: what a benchmark client needs, since it only counts replies and
 * looks at errors. State carries across chunks, so a reply may be split
 * anywhere. Bulk payloads are skipped in one step, so a long LRANGE reply
 * costs a few bytes of scanning per element.
 *
 *   const rc = new ReplyCounter();
 *   let pos = 0;
 *   while ((pos = rc.next(chunk, pos)) !== -1) {
 *     if (rc.isError) console.log(rc.errorText);
 *   }
 *
 * RESP2 and RESP3 types are understood. A push message ('>') completes like
 * any reply; `isPush` tells the caller to pass over it, as hiredis does.
 */

const CR = 13;
const LF = 10;

/** Where the scanner is inside the current element. */
const enum At {
  /** Expecting a type byte. */
  Type,
  /** In the number of a length header ($, *, %, ...). */
  Length,
  /** In a line whose content does not matter (+, :, ,, #, _ and the like). */
  Line,
  /** Skipping a bulk payload and its CRLF. */
  Payload,
}

export class ReplyCounter {
  private at = At.Type;
  private type = 0;
  private length = 0;
  private negative = false;
  private remaining = 0;
  /** Elements still expected by each open aggregate, innermost last. */
  private stack = new Float64Array(16);
  private depth = 0;
  private topType = 0;
  private capturing = false;
  private captured = '';
  /** Elements announced by aggregate headers so far; the caller may reset it. */
  items = 0;
  /** The reply just completed was an error ('-' or RESP3 '!'). */
  isError = false;
  /** The reply just completed was a RESP3 push message. */
  isPush = false;
  /** The message of the error just completed. */
  errorText = '';

  /**
   * Scans `buf` from `pos`; returns the offset just past the next complete
   * top-level reply, or -1 when the chunk ends first.
   */
  next(buf: Uint8Array, pos: number): number {
    const end = buf.length;
    let i = pos;
    while (i < end) {
      // Fast path for the common element, a bulk string whose header and
      // payload are whole in this chunk ($3\r\nVXK\r\n): no state changes.
      if (this.at === At.Type && buf[i] === 36 /* $ */) {
        let j = i + 1;
        let n = 0;
        let b = 0;
        while (j < end && (b = buf[j]!) >= 48 && b <= 57) {
          n = n * 10 + (b - 48);
          j++;
        }
        if (j > i + 1 && b === CR && j + 4 + n <= end) {
          if (this.depth === 0) {
            this.topType = 36;
            this.capturing = false;
          }
          i = j + 4 + n;
          if (this.completeElement()) return i;
          continue;
        }
      }
      switch (this.at) {
        case At.Type: {
          const t = buf[i++]!;
          this.type = t;
          if (this.depth === 0) {
            this.topType = t;
            this.capturing = t === 45 /* - */ || t === 33; /* ! */
            this.captured = '';
          }
          this.at = isLengthType(t) ? At.Length : At.Line;
          this.length = 0;
          this.negative = false;
          break;
        }
        case At.Length: {
          const b = buf[i++]!;
          if (b >= 48 && b <= 57) this.length = this.length * 10 + (b - 48);
          else if (b === 45) this.negative = true;
          else if (b === LF) {
            const n = this.negative ? -this.length : this.length;
            if (this.elementHeader(n) && this.completeElement()) return i;
          }
          break;
        }
        case At.Line: {
          if (this.capturing) {
            const b = buf[i++]!;
            if (b === LF) {
              this.at = At.Type;
              if (this.completeElement()) return i;
            } else if (b !== CR) this.captured += String.fromCharCode(b);
            break;
          }
          const nl = buf.indexOf(LF, i);
          if (nl === -1) return -1;
          i = nl + 1;
          this.at = At.Type;
          if (this.completeElement()) return i;
          break;
        }
        case At.Payload: {
          const take = Math.min(this.remaining, end - i);
          if (this.capturing) {
            for (let k = i; k < i + take; k++) {
              // The payload's last two bytes are its CRLF.
              if (this.remaining - (k - i) > 2) this.captured += String.fromCharCode(buf[k]!);
            }
          }
          i += take;
          this.remaining -= take;
          if (this.remaining === 0) {
            this.at = At.Type;
            if (this.completeElement()) return i;
          }
          break;
        }
      }
    }
    return -1;
  }

  /**
   * Handles a length header's value. Returns true when the element is
   * already complete (a null, an empty aggregate), false when its payload
   * or elements follow.
   */
  private elementHeader(n: number): boolean {
    const t = this.type;
    if (t === 36 /* $ */ || t === 61 /* = */ || t === 33 /* ! */) {
      this.at = At.Type;
      if (n < 0) return true;
      this.remaining = n + 2;
      this.at = At.Payload;
      return false;
    }
    this.at = At.Type;
    // Maps and attributes hold two elements per entry.
    const count = t === 37 /* % */ || t === 124 /* | */ ? 2 * n : n;
    if (count <= 0) return true;
    this.items += count;
    if (this.depth === this.stack.length) {
      const bigger = new Float64Array(this.stack.length * 2);
      bigger.set(this.stack);
      this.stack = bigger;
    }
    this.stack[this.depth++] = count;
    return false;
  }

  /** One element ended; returns true when that closed the top-level reply. */
  private completeElement(): boolean {
    while (this.depth > 0) {
      if (--this.stack[this.depth - 1]! > 0) return false;
      this.depth--;
    }
    const t = this.topType;
    this.isError = t === 45 || t === 33;
    this.isPush = t === 62; /* > */
    this.errorText = this.isError ? this.captured : '';
    this.capturing = false;
    return true;
  }
}

function isLengthType(t: number): boolean {
  // $ * % ~ > | = !
  return t === 36 || t === 42 || t === 37 || t === 126 || t === 62 || t === 124 || t === 61 || t === 33;
}
