/**
 * A Redis error reply, as client libraries raise it: `message` is the exact
 * text after the dash ("ERR syntax error", "WRONGTYPE Operation ..."), and
 * `code` its first word.
 */
export class ReplyError extends Error {
  readonly code: string;

  constructor(message: string) {
    super(message);
    this.name = 'ReplyError';
    const space = message.indexOf(' ');
    this.code = space < 0 ? message : message.slice(0, space);
  }
}
