import { ReplyError } from '../../emulator/client-library/index.js';
import type { WireError, WireValue } from './protocol.js';

/** An error as plain data: its name and message. */
export function toWireError(e: unknown): WireError {
  if (e instanceof Error) return { name: e.name, message: e.message };
  return { name: 'Error', message: String(e) };
}

/**
 * A client's answer as plain data for the cell: errors (a pipeline's
 * failed commands, EXEC's) become `{ error }` objects, everything else
 * keeps its shape.
 */
export function toWireValue(v: unknown): WireValue {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'bigint' || v instanceof Uint8Array) return v;
  if (v instanceof Error) return { error: toWireError(v) };
  if (Array.isArray(v)) return v.map(toWireValue);
  return String(v);
}

/** An error back from plain data: a Redis error reply stays a ReplyError, as ioredis gives it. */
export function fromWireError(e: WireError): Error {
  if (e.name === 'ReplyError') return new ReplyError(e.message);
  const err = new Error(e.message);
  err.name = e.name;
  return err;
}

/** The cell's view of an answer: `{ error }` objects become errors again. */
export function fromWireValue(v: WireValue): unknown {
  if (Array.isArray(v)) return v.map(fromWireValue);
  if (v !== null && typeof v === 'object' && !(v instanceof Uint8Array)) return fromWireError(v.error);
  return v;
}
