/**
 * Reply values. Handlers return these; the connection encodes them for the
 * client's protocol (RESP2 or RESP3), and the in-process client converts them
 * to JavaScript values without encoding at all.
 *
 * The common replies are plain JavaScript values so that the hot path
 * allocates nothing:
 *   string      a bulk string (a byte string, see bytes.ts)
 *   number      an integer (always a safe integer)
 *   bigint      an integer outside the safe range (still a signed 64-bit value)
 *   null        a null bulk string ($-1, or _ in RESP3)
 *   Reply[]     an array
 * The rest are small classes.
 */
export type Reply =
  | string
  | number
  | bigint
  | null
  | Reply[]
  | StatusReply
  | ErrorReply
  | NullArrayReply
  | DoubleReply
  | MapReply
  | SetReply
  | VerbatimReply
  | BoolReply
  | BigNumberReply
  | PushReply
  | AttributeReply
  | FramesReply;

/** A simple string: +OK */
export class StatusReply {
  constructor(readonly text: string) {}
}

/**
 * An error: -ERR message. `message` holds everything after the dash,
 * including the code (ERR, WRONGTYPE, EXECABORT, ...).
 */
export class ErrorReply {
  constructor(readonly message: string) {}

  /** The error code: the first word of the message. */
  get code(): string {
    const space = this.message.indexOf(' ');
    return space < 0 ? this.message : this.message.slice(0, space);
  }
}

/** The null array: *-1 in RESP2 (EXEC aborted by WATCH, BLPOP timeout), _ in RESP3. */
export class NullArrayReply {
  private constructor() {}
  static readonly instance = new NullArrayReply();
}

/** A double: a bulk string in RESP2, ",<value>" in RESP3. */
export class DoubleReply {
  constructor(readonly value: number) {}
}

/** A map: a flat array of 2N elements in RESP2, "%N" in RESP3. */
export class MapReply {
  /** Keys and values, interleaved. */
  constructor(readonly flat: Reply[]) {}
}

/** A set: an array in RESP2, "~N" in RESP3. */
export class SetReply {
  constructor(readonly items: Reply[]) {}
}

/** Verbatim text (INFO, CLIENT LIST): a bulk string in RESP2, "=N\r\ntxt:..." in RESP3. */
export class VerbatimReply {
  constructor(readonly text: string, readonly format = 'txt') {}
}

/** A boolean: :1 / :0 in RESP2, #t / #f in RESP3. */
export class BoolReply {
  private constructor(readonly value: boolean) {}
  static readonly TRUE = new BoolReply(true);
  static readonly FALSE = new BoolReply(false);
}

/** A big number: a bulk string in RESP2, "(digits" in RESP3. */
export class BigNumberReply {
  constructor(readonly digits: string) {}
}

/** An out-of-band push: an array in RESP2, ">N" in RESP3. */
export class PushReply {
  constructor(readonly items: Reply[]) {}
}

/**
 * A reply preceded by RESP3 attributes ("|N" and N key/value pairs). A RESP2
 * client sees only the reply.
 */
export class AttributeReply {
  /** Keys and values, interleaved. */
  constructor(readonly attributes: Reply[], readonly reply: Reply) {}
}

/**
 * Several top-level messages answering one command, in order: a push
 * followed by the real reply, or one confirmation per channel for SUBSCRIBE.
 */
export class FramesReply {
  constructor(readonly frames: Reply[]) {}
}

export const OK = new StatusReply('OK');
export const QUEUED = new StatusReply('QUEUED');
export const PONG = new StatusReply('PONG');
export const NULL_ARRAY = NullArrayReply.instance;
export const EMPTY_ARRAY: Reply[] = Object.freeze([]) as unknown as Reply[];

/**
 * Builds an error reply the way Redis's addReplyErrorFormat does: "ERR " is
 * prepended unless the text starts with "-CODE", and CR/LF inside the text
 * become spaces so the protocol stays intact.
 */
export function errorReply(text: string): ErrorReply {
  let t = text;
  if (/[\r\n]/.test(t)) t = t.replace(/^[\r\n]+|[\r\n]+$/g, '').replace(/[\r\n]/g, ' ');
  return new ErrorReply(t.charCodeAt(0) === 45 /* - */ ? t.slice(1) : 'ERR ' + t);
}

export function isError(r: Reply): r is ErrorReply {
  return r instanceof ErrorReply;
}
