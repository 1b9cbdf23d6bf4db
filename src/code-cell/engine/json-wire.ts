/**
 * Messages across the edge of the cell's engine (QuickJS in WebAssembly)
 * as text, the one kind of value both sides copy cheaply: JSON, with the
 * two kinds of value JSON lacks carried beside it. A bigint becomes
 * `{"\u0000n": "123"}`; bytes become `{"\u0000b": i}`, the i-th of a list
 * of ArrayBuffers passed with the text. A plain object's own key that
 * begins with "\u0000" gets one more in front, and loses it on the way
 * back, so no value a cell reports can pass for either.
 *
 *   const { json, buffers } = encodeWire({ argv: ['SET', 'k', new Uint8Array([1])] });
 *   decodeWire(json, buffers)   // the same value
 */

const BIGINT = '\u0000n';
const BYTES = '\u0000b';

export interface WireText {
  readonly json: string;
  readonly buffers: ArrayBuffer[];
}

export function encodeWire(value: unknown): WireText {
  // Most messages are plain (no bigint, bytes or marked key): they need no
  // replacer, which costs a call per value, in the cell's interpreter most of all.
  if (isPlain(value, 0)) return { json: JSON.stringify(value) ?? 'null', buffers: [] };
  return encodeMarked(value);
}

/**
 * encodeWire for the cell's engine, where JSON.stringify itself is slow
 * (QuickJS checks every object for toJSON and builds its text piece by
 * piece, several times the cost of the walk below for a step's few
 * values): a plain message is written in one walk, the same text
 * JSON.stringify would write; any other takes encodeWire's way.
 */
export function encodeWireInEngine(value: unknown): WireText {
  const step = stepText(value);
  if (step !== null) return { json: step, buffers: [] };
  engineWalks.count++;
  const out: string[] = [];
  if (writePlain(value, 0, out)) return { json: out.join(''), buffers: [] };
  return isPlain(value, 0) ? { json: JSON.stringify(value) ?? 'null', buffers: [] } : encodeMarked(value);
}

/** Messages encodeWireInEngine wrote by walking them (a step of commands and sleeps is written without). */
export const engineWalks = { count: 0 };

/**
 * The JSON text of a step whose requests are all commands of strings and
 * finite numbers, or sleeps, else null. Every turn of a cell that awaits
 * a command ends with such a step, and the generic walk costs it several
 * times what this does in the engine's interpreter: the fields are known,
 * so only the values are handed to JSON.stringify. The runtime makes
 * these objects (cell-runtime.ts, cell-client.ts) with exactly these keys
 * in this order, so the text is JSON.stringify's own, which the tests
 * compare.
 */
function stepText(msg: unknown): string | null {
  const m = msg as { type?: unknown; requests?: unknown; progress?: { text?: unknown; fraction?: unknown } | null };
  if (m === null || typeof m !== 'object' || m.type !== 'step' || !Array.isArray(m.requests)) return null;
  let text = '{"type":"step","requests":[';
  const requests = m.requests as unknown[];
  for (let i = 0; i < requests.length; i++) {
    const r = requests[i] as Record<string, unknown> | null;
    if (r === null || typeof r !== 'object' || typeof r.id !== 'number') return null;
    if (i !== 0) text += ',';
    if (r.op === 'send') {
      const argvs = r.argvs;
      if (typeof r.conn !== 'number' || typeof r.flight !== 'string' || !Array.isArray(argvs)) return null;
      text += '{"op":"send","conn":' + JSON.stringify(r.conn) + ',"flight":' + JSON.stringify(r.flight) + ',"argvs":[';
      for (let j = 0; j < argvs.length; j++) {
        const argv = argvs[j] as unknown;
        if (!Array.isArray(argv)) return null;
        for (let k = 0; k < argv.length; k++) {
          const t = typeof argv[k];
          if (t !== 'string' && t !== 'number') return null;
        }
        text += (j === 0 ? '' : ',') + JSON.stringify(argv);
      }
      text += '],"id":' + JSON.stringify(r.id) + '}';
    } else if (r.op === 'sleep' && typeof r.ms === 'number') {
      text += '{"op":"sleep","ms":' + JSON.stringify(r.ms) + ',"id":' + JSON.stringify(r.id) + '}';
    } else return null;
  }
  text += ']';
  const p = m.progress;
  if (p !== undefined) {
    if (p === null || typeof p !== 'object' || typeof p.text !== 'string' || (p.fraction !== null && typeof p.fraction !== 'number')) return null;
    text += ',"progress":{"text":' + JSON.stringify(p.text) + ',"fraction":' + JSON.stringify(p.fraction) + '}';
  }
  return text + '}';
}

/** Characters JSON.stringify writes escaped: quotes, backslashes, control characters, and surrogates (a lone one is escaped). */
const NEEDS_ESCAPE = /[\u0000-\u001f"\\\ud800-\udfff]/;

/**
 * Appends the JSON text of a plain value (strings, finite numbers,
 * booleans, null, arrays and plain objects of them, no key beginning with
 * "\u0000", no toJSON; undefined inside an object or array as
 * JSON.stringify writes it) and says true; says false, having written part of it, at anything
 * else.
 */
function writePlain(v: unknown, depth: number, out: string[]): boolean {
  if (typeof v === 'string') {
    out.push(NEEDS_ESCAPE.test(v) ? JSON.stringify(v) : '"' + v + '"');
    return true;
  }
  if (typeof v === 'number') {
    out.push(Number.isFinite(v) ? String(v) : 'null');
    return true;
  }
  if (typeof v === 'boolean') {
    out.push(v ? 'true' : 'false');
    return true;
  }
  if (v === null) {
    out.push('null');
    return true;
  }
  if (typeof v !== 'object' || depth > 32 || typeof (v as { toJSON?: unknown }).toJSON === 'function') return false;
  if (Array.isArray(v)) {
    out.push('[');
    for (let i = 0; i < v.length; i++) {
      if (i !== 0) out.push(',');
      const x: unknown = v[i];
      if (x === undefined) out.push('null');
      else if (!writePlain(x, depth + 1, out)) return false;
    }
    out.push(']');
    return true;
  }
  if (Object.getPrototypeOf(v) !== Object.prototype) return false;
  out.push('{');
  let first = true;
  for (const k in v) {
    if (!Object.prototype.hasOwnProperty.call(v, k)) continue;
    const x = (v as Record<string, unknown>)[k];
    if (x === undefined) continue;
    if (k === 'toJSON' || k.charCodeAt(0) === 0) return false;
    if (!first) out.push(',');
    first = false;
    out.push(NEEDS_ESCAPE.test(k) ? JSON.stringify(k) : '"' + k + '"', ':');
    if (!writePlain(x, depth + 1, out)) return false;
  }
  out.push('}');
  return true;
}

/** The JSON text of a value with bigints, bytes or marked keys, with the bytes beside it. */
function encodeMarked(value: unknown): WireText {
  const buffers: ArrayBuffer[] = [];
  const json = JSON.stringify(value, function (this: unknown, _key: string, v: unknown) {
    if (typeof v === 'bigint') return { [BIGINT]: v.toString() };
    if (v instanceof Uint8Array) {
      buffers.push(v.slice().buffer);
      return { [BYTES]: buffers.length - 1 };
    }
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).some((k) => k.startsWith('\u0000'))) {
      const escaped: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) escaped[k.startsWith('\u0000') ? '\u0000' + k : k] = x;
      return escaped;
    }
    return v;
  });
  return { json: json ?? 'null', buffers };
}

/**
 * Whether JSON.stringify alone writes the value as encodeWire's replacer
 * would: no bigint, no bytes, no key beginning with "\u0000", no toJSON
 * (whose result the replacer would see), and not so deep that it may be a
 * cycle (the replacer's path then throws as it should).
 */
function isPlain(v: unknown, depth: number): boolean {
  if (v === null || typeof v !== 'object') return typeof v !== 'bigint';
  if (depth > 32) return false;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (!isPlain(v[i], depth + 1)) return false;
    return true;
  }
  if (v instanceof Uint8Array || typeof (v as { toJSON?: unknown }).toJSON === 'function') return false;
  for (const k in v) {
    if (!Object.prototype.hasOwnProperty.call(v, k)) continue;
    if (k.charCodeAt(0) === 0 || !isPlain((v as Record<string, unknown>)[k], depth + 1)) return false;
  }
  return true;
}

export function decodeWire(json: string, buffers: readonly ArrayBuffer[]): unknown {
  // Every marker, and every key escaped for beginning with one, begins with
  // "\u0000", which JSON.stringify writes as those six characters: a text
  // without them has nothing to revive, and parsing it without a reviver
  // (a call per value) is several times faster, in the cell's interpreter most of all.
  if (!json.includes('\\u0000')) return JSON.parse(json);
  return JSON.parse(json, (_key, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    const keys = Object.keys(v);
    if (keys.length === 1 && keys[0] === BIGINT) return BigInt((v as Record<string, string>)[BIGINT]!);
    if (keys.length === 1 && keys[0] === BYTES) {
      const buffer = buffers[(v as Record<string, number>)[BYTES]!];
      return buffer === undefined ? null : new Uint8Array(buffer);
    }
    if (!keys.some((k) => k.startsWith('\u0000'))) return v;
    const out: Record<string, unknown> = {};
    for (const k of keys) out[k.startsWith('\u0000') ? k.slice(1) : k] = (v as Record<string, unknown>)[k];
    return out;
  });
}
