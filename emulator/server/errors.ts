import { ErrorReply, errorReply } from '../resp/reply.js';

/**
 * The error replies Redis shares between commands (src/server.c
 * createSharedObjects and the *OrReply helpers), spelled exactly.
 */
export const WRONGTYPE = new ErrorReply('WRONGTYPE Operation against a key holding the wrong kind of value');
export const SYNTAX_ERROR = new ErrorReply('ERR syntax error');
export const NOT_INTEGER = new ErrorReply('ERR value is not an integer or out of range');
export const NOT_FLOAT = new ErrorReply('ERR value is not a valid float');
export const NO_SUCH_KEY = new ErrorReply('ERR no such key');
export const OUT_OF_RANGE = new ErrorReply('ERR index out of range');
export const INVALID_DB_INDEX = new ErrorReply('ERR DB index is out of range');
export const OVERFLOW = new ErrorReply('ERR increment or decrement would overflow');
export const STRING_TOO_LONG = new ErrorReply('ERR string exceeds maximum allowed size (proto-max-bulk-len)');

/** "invalid expire time in 'set' command" */
export function invalidExpireTime(commandName: string): ErrorReply {
  return errorReply(`invalid expire time in '${commandName}' command`);
}

/** "value is out of range, must be positive" and friends take their text from the caller. */
export function err(text: string): ErrorReply {
  return errorReply(text);
}
