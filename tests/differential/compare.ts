import { ReplyParser } from '../../emulator/resp/reply-parser.js';
import {
  DoubleReply,
  ErrorReply,
  MapReply,
  NullArrayReply,
  SetReply,
  StatusReply,
  VerbatimReply,
  type Reply,
} from '../../emulator/resp/reply.js';
import type { Compare } from './script.js';

function parseOne(raw: string): Reply {
  const p = new ReplyParser();
  p.feed(raw);
  const r = p.next();
  if (r === undefined) throw new Error('incomplete reply ' + JSON.stringify(raw));
  return r;
}

function typeTag(r: Reply): string {
  if (typeof r === 'string') return 'bulk';
  if (typeof r === 'number' || typeof r === 'bigint') return 'integer';
  if (r === null) return 'null';
  if (Array.isArray(r)) return 'array';
  if (r instanceof StatusReply) return 'status';
  if (r instanceof ErrorReply) return 'error';
  if (r instanceof NullArrayReply) return 'nullarray';
  if (r instanceof DoubleReply) return 'double';
  if (r instanceof MapReply) return 'map';
  if (r instanceof SetReply) return 'set';
  if (r instanceof VerbatimReply) return 'verbatim';
  return 'other';
}

function elements(r: Reply): Reply[] | null {
  if (Array.isArray(r)) return r;
  if (r instanceof SetReply) return r.items;
  if (r instanceof MapReply) return r.flat;
  return null;
}

function isScanReply(r: Reply): r is Reply[] {
  return Array.isArray(r) && r.length === 2 && typeof r[0] === 'string' && Array.isArray(r[1]);
}

/** A canonical text for a reply, for sorting and equality. */
function canon(r: Reply): string {
  // Reply classes are tagged by name; the plain object made for the tag is
  // not tagged again (that would recurse without end).
  return JSON.stringify(r, (_k, v) =>
    typeof v === 'bigint' ? `${v}n` : v instanceof Object && !Array.isArray(v) && v.constructor !== Object ? { [v.constructor.name]: { ...v } } : v,
  );
}

function textOf(r: Reply): string | null {
  if (typeof r === 'string') return r;
  if (r instanceof VerbatimReply) return r.text;
  return null;
}

/**
 * Compares a real reply with the emulator's, both as raw RESP bytes, by the
 * step's rule. Returns null when they agree, or a description.
 */
export function compareReplies(real: string, emu: string, how: Compare): string | null {
  if (how.kind === 'exact') return real === emu ? null : 'replies differ';
  const a = parseOne(real);
  const b = parseOne(emu);
  if (typeTag(a) !== typeTag(b)) return `reply types differ (${typeTag(a)} vs ${typeTag(b)})`;
  switch (how.kind) {
    case 'type':
      return null;
    case 'shape': {
      const ea = elements(a);
      const eb = elements(b);
      if (ea && eb && ea.length !== eb.length) return `sizes differ (${ea.length} vs ${eb.length})`;
      if (a instanceof ErrorReply && b instanceof ErrorReply && a.code !== b.code) return 'error codes differ';
      return null;
    }
    case 'unordered':
    case 'pairs': {
      let ea = elements(a);
      let eb = elements(b);
      if (!ea || !eb) return real === emu ? null : 'replies differ';
      // A SCAN-family reply, [cursor, elements]: the cursor must be equal,
      // the elements compare by the rule.
      if (isScanReply(a) && isScanReply(b)) {
        if (a[0] !== b[0]) return 'cursors differ';
        ea = a[1] as Reply[];
        eb = b[1] as Reply[];
      }
      const group = (xs: Reply[]): string[] => {
        const out: string[] = [];
        const step = how.kind === 'pairs' || a instanceof MapReply ? 2 : 1;
        for (let i = 0; i < xs.length; i += step) out.push(canon(xs.slice(i, i + step)));
        return out.sort();
      };
      const ga = group(ea);
      const gb = group(eb);
      return JSON.stringify(ga) === JSON.stringify(gb) ? null : 'elements differ';
    }
    case 'mask':
      return compareMasked(a, b, how.paths);
    case 'lines':
    case 'fields': {
      const ta = textOf(a);
      const tb = textOf(b);
      if (ta === null || tb === null) return real === emu ? null : 'replies differ';
      const ignored = (name: string): boolean => how.ignore.some((pat) => matchName(pat, name));
      const norm =
        how.kind === 'lines'
          ? (t: string): string[] =>
              t.split('\r\n').map((l) => {
                const colon = l.indexOf(':');
                if (colon < 0) return l;
                const name = l.slice(0, colon);
                return ignored(name) ? name + ':<ignored>' : l;
              })
          : (t: string): string[] =>
              t.split('\n').map((l) =>
                l
                  .split(' ')
                  .map((w) => {
                    const eq = w.indexOf('=');
                    return eq > 0 && ignored(w.slice(0, eq)) ? w.slice(0, eq) + '=<ignored>' : w;
                  })
                  .join(' '),
              );
      const la = norm(ta);
      const lb = norm(tb);
      for (let i = 0; i < Math.max(la.length, lb.length); i++) {
        if (la[i] !== lb[i]) return `line ${i + 1} differs: ${JSON.stringify(la[i])} vs ${JSON.stringify(lb[i])}`;
      }
      return null;
    }
  }
}

/**
 * Compares two replies exactly, except at the masked paths, where only the
 * type must agree. A path is a list of indexes into nested aggregates
 * ('*' matches any index).
 */
function compareMasked(a: Reply, b: Reply, paths: string[][], at: string[] = []): string | null {
  const masked = paths.some((p) => p.length === at.length && p.every((seg, i) => seg === '*' || seg === at[i]));
  if (typeTag(a) !== typeTag(b)) return `types differ at ${at.join('.') || 'the top'} (${typeTag(a)} vs ${typeTag(b)})`;
  if (masked) return null;
  const ea = elements(a);
  const eb = elements(b);
  if (ea === null || eb === null) return canon(a) === canon(b) ? null : `replies differ at ${at.join('.') || 'the top'}`;
  if (ea.length !== eb.length) return `sizes differ at ${at.join('.') || 'the top'} (${ea.length} vs ${eb.length})`;
  for (let i = 0; i < ea.length; i++) {
    const d = compareMasked(ea[i]!, eb[i]!, paths, [...at, String(i)]);
    if (d !== null) return d;
  }
  return null;
}

function matchName(pattern: string, name: string): boolean {
  if (pattern.endsWith('*')) return name.startsWith(pattern.slice(0, -1));
  return pattern === name;
}
