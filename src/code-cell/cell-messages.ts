import type { CellArg, CellError, CellMessage, CellProgress, CellRequest, CellShard, Flight, SentinelAt } from './protocol.js';

/**
 * Checks a message from a cell's code before the page acts on it. The
 * cell's code can post anything, so nothing is taken on trust: each field
 * has the type it must have, and sizes are bounded so that a cell cannot
 * make the page hold unbounded data in one message.
 */

/** Most requests in one message. */
const MAX_REQUESTS = 100_000;
/** Most commands in one flight (a pipeline or a transaction). */
const MAX_FLIGHT = 100_000;
/** Most bytes of arguments in one message. */
const MAX_ARG_BYTES = 64 * 1024 * 1024;
/** Most characters of one printed line or of a message's text kept; longer text is cut. */
export const MAX_TEXT = 10_000;
/** Most printed lines in one message (the cell keeps no more between two). */
export const MAX_PRINT_LINES = 2000;
/** Longest name of a report, a host or a target. */
const MAX_NAME = 200;

const FLIGHTS: readonly Flight[] = ['command', 'pipeline', 'multi'];
const SCALE_READS = ['master', 'slave', 'all'] as const;
/** Most shards of one connection, and replicas of one shard. */
const MAX_SHARDS = 64;

/** A sharded connection's shards ({ primary, replicas } of 'host:port' names), or why not. */
function parseShards(v: unknown): CellShard[] | string {
  if (!Array.isArray(v) || v.length === 0 || v.length > MAX_SHARDS) return `open with shards that are not a list of 1 to ${MAX_SHARDS}`;
  const out: CellShard[] = [];
  for (const s of v as unknown[]) {
    if (!isObject(s) || !isName(s.primary)) return 'open with a shard without a primary';
    const replicas = s.replicas ?? [];
    if (!Array.isArray(replicas) || replicas.length > MAX_SHARDS || !replicas.every(isName)) return 'open with a shard whose replicas are not names';
    out.push({ primary: s.primary, replicas: [...(replicas as string[])] });
  }
  return out;
}

/** The message as a CellMessage, or the reason it is not one. */
export function parseCellMessage(data: unknown): CellMessage | string {
  if (!isObject(data)) return 'not an object';
  switch (data.type) {
    case 'print': {
      const lines = data.lines;
      if (!Array.isArray(lines) || lines.length > MAX_PRINT_LINES || !isIndex(data.dropped)) return 'print without lines';
      const kept: string[] = [];
      for (const line of lines as unknown[]) {
        if (typeof line !== 'string') return 'print with a line that is not text';
        kept.push(line.length > MAX_TEXT ? line.slice(0, MAX_TEXT) + '…' : line);
      }
      return { type: 'print', lines: kept, dropped: data.dropped };
    }
    case 'report':
      if (typeof data.name !== 'string' || data.name.length === 0 || data.name.length > MAX_NAME) return 'report without a name';
      return { type: 'report', name: data.name, value: plainData(data.value) };
    case 'step':
    case 'done': {
      const requests = parseRequests(data.requests);
      if (typeof requests === 'string') return requests;
      if (data.type === 'step') {
        if (data.progress === undefined) return { type: 'step', requests };
        const progress = parseProgress(data.progress);
        return typeof progress === 'string' ? progress : { type: 'step', requests, progress };
      }
      const error = data.error === null ? null : parseError(data.error);
      if (error === undefined) return 'done with a malformed error';
      return { type: 'done', error, requests };
    }
    default:
      return 'unknown message type';
  }
}

function parseProgress(x: unknown): CellProgress | string {
  if (!isObject(x) || typeof x.text !== 'string') return 'progress without a text';
  const f = x.fraction;
  if (f !== null && (typeof f !== 'number' || !Number.isFinite(f))) return 'progress with a fraction that is not a number';
  const text = x.text.length > MAX_NAME ? x.text.slice(0, MAX_NAME) + '…' : x.text;
  return { text, fraction: f === null ? null : Math.min(1, Math.max(0, f)) };
}

function parseRequests(x: unknown): CellRequest[] | string {
  if (!Array.isArray(x)) return 'requests are not a list';
  if (x.length > MAX_REQUESTS) return 'too many requests at once';
  const out: CellRequest[] = [];
  let bytes = 0;
  for (const r of x as unknown[]) {
    if (!isObject(r) || !isIndex(r.id)) return 'a request without an id';
    switch (r.op) {
      case 'open': {
        if (!isIndex(r.conn)) return 'open without a connection';
        for (const f of ['from', 'to', 'client', 'name'] as const) if (r[f] !== undefined && !isName(r[f])) return `open with a bad ${f}`;
        const open: Extract<CellRequest, { op: 'open' }> = { id: r.id, op: 'open', conn: r.conn, from: r.from as string | undefined, to: r.to as string | undefined, client: r.client as string | undefined };
        if (r.shards !== undefined) {
          const shards = parseShards(r.shards);
          if (typeof shards === 'string') return shards;
          if (r.scaleReads !== undefined && !SCALE_READS.includes(r.scaleReads as never)) return 'open with a bad scaleReads';
          out.push({ ...open, shards, scaleReads: r.scaleReads as 'master' | 'slave' | 'all' | undefined });
          break;
        }
        if (r.sentinels === undefined && r.name === undefined) {
          out.push(open);
          break;
        }
        const sentinels = parseSentinels(r.sentinels);
        if (typeof sentinels === 'string') return sentinels;
        if (r.name === undefined) return 'open with sentinels and no name';
        out.push({ ...open, sentinels, name: r.name as string });
        break;
      }
      case 'send': {
        if (!isIndex(r.conn)) return 'send without a connection';
        if (!FLIGHTS.includes(r.flight as Flight)) return 'send with an unknown flight';
        if (!Array.isArray(r.argvs) || r.argvs.length > MAX_FLIGHT) return 'send without commands';
        if (r.flight === 'command' && r.argvs.length !== 1) return 'a single command with several argument lists';
        for (const argv of r.argvs as unknown[]) {
          if (!Array.isArray(argv) || argv.length === 0) return 'a command without a name';
          for (const a of argv as unknown[]) {
            if (typeof a === 'string') bytes += a.length * 3;
            else if (a instanceof Uint8Array) bytes += a.length;
            else if (typeof a === 'number' || typeof a === 'bigint') bytes += 24;
            else return 'an argument that is not a string, number or bytes';
          }
        }
        if (bytes > MAX_ARG_BYTES) return 'more argument bytes than a message may carry';
        out.push({ id: r.id, op: 'send', conn: r.conn, flight: r.flight as Flight, argvs: r.argvs as CellArg[][] });
        break;
      }
      case 'close':
        if (!isIndex(r.conn)) return 'close without a connection';
        out.push({ id: r.id, op: 'close', conn: r.conn });
        break;
      case 'sleep':
        if (typeof r.ms !== 'number' || !Number.isFinite(r.ms) || r.ms < 0) return 'sleep without a duration';
        out.push({ id: r.id, op: 'sleep', ms: r.ms });
        break;
      default:
        return 'unknown request';
    }
  }
  return out;
}

/** Most sentinels one client may be given. */
const MAX_SENTINELS = 16;

function parseSentinels(x: unknown): SentinelAt[] | string {
  if (!Array.isArray(x) || x.length === 0 || x.length > MAX_SENTINELS) return 'open with a name and no list of sentinels';
  const out: SentinelAt[] = [];
  for (const s of x as unknown[]) {
    if (!isObject(s) || !isName(s.host) || typeof s.port !== 'number' || !Number.isInteger(s.port) || s.port < 1 || s.port > 65535) return 'open with a sentinel that is not { host, port }';
    out.push({ host: s.host, port: s.port });
  }
  return out;
}

function parseError(x: unknown): CellError | undefined {
  if (!isObject(x) || typeof x.name !== 'string' || typeof x.message !== 'string') return undefined;
  const line = isIndex(x.line) ? x.line : null;
  const column = isIndex(x.column) ? x.column : null;
  return { name: x.name.slice(0, MAX_NAME), message: x.message.length > MAX_TEXT ? x.message.slice(0, MAX_TEXT) + '…' : x.message, line, column };
}

/**
 * A report's value kept as plain data only (numbers, strings, booleans,
 * null, arrays and plain objects), with bounded depth and size: what a
 * lesson check or a chart can read.
 */
export function plainData(x: unknown, depth = 0, budget = { left: 100_000 }): unknown {
  if (--budget.left < 0 || depth > 16) return null;
  if (x === null || typeof x === 'boolean') return x;
  if (typeof x === 'number') return Number.isFinite(x) ? x : null;
  if (typeof x === 'bigint') return x.toString();
  if (typeof x === 'string') return x.length > MAX_TEXT ? x.slice(0, MAX_TEXT) : x;
  if (Array.isArray(x)) return x.map((v) => plainData(v, depth + 1, budget));
  if (isObject(x) && Object.getPrototypeOf(x) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(x)) {
      if (k === '__proto__') continue;
      out[k] = plainData(v, depth + 1, budget);
    }
    return out;
  }
  return null;
}

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null;
}

function isIndex(x: unknown): x is number {
  return typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;
}

function isName(x: unknown): x is string {
  return typeof x === 'string' && x.length > 0 && x.length <= MAX_NAME;
}
