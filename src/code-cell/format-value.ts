/**
 * How print() and console.log() in a cell show values: strings as they
 * are, everything else the way Node's console shows it, shortened
 * (`[ 'OK', 1, null ]`, `{ plain: 3761.2 }`, `ReplyError: WRONGTYPE ...`).
 * The page shows the result as inert text.
 *
 *   formatArgs(['count', 3, ['a', null]])   // "count 3 [ 'a', null ]"
 */
export function formatArgs(args: readonly unknown[]): string {
  return args.map((a) => (typeof a === 'string' ? a : formatValue(a, 0, new Set()))).join(' ');
}

const MAX_ITEMS = 100;
const MAX_DEPTH = 4;

export function formatValue(v: unknown, depth: number, seen: Set<object>): string {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'undefined':
      return 'undefined';
    case 'string':
      return depth === 0 ? v : quote(v);
    case 'number':
      return Object.is(v, -0) ? '-0' : String(v);
    case 'bigint':
      return `${v}n`;
    case 'boolean':
      return String(v);
    case 'symbol':
      return v.toString();
    case 'function':
      return `[Function: ${v.name || '(anonymous)'}]`;
  }
  const o = v as object;
  if (o instanceof Error) return `${o.name}: ${o.message}`;
  if (seen.has(o)) return '[Circular]';
  if (depth >= MAX_DEPTH) return Array.isArray(o) ? '[Array]' : '[Object]';
  seen.add(o);
  try {
    if (o instanceof Uint8Array) return `Uint8Array(${o.length}) [ ${list([...o.subarray(0, MAX_ITEMS)].map(String), o.length)} ]`;
    if (o instanceof Date) return Number.isNaN(o.getTime()) ? 'Invalid Date' : o.toISOString();
    if (Array.isArray(o)) {
      if (o.length === 0) return '[]';
      return `[ ${list(o.slice(0, MAX_ITEMS).map((x) => formatValue(x, depth + 1, seen)), o.length)} ]`;
    }
    if (o instanceof Map) {
      const items = [...o].slice(0, MAX_ITEMS).map(([k, x]) => `${formatValue(k, depth + 1, seen)} => ${formatValue(x, depth + 1, seen)}`);
      return `Map(${o.size}) { ${list(items, o.size)} }`;
    }
    if (o instanceof Set) return `Set(${o.size}) { ${list([...o].slice(0, MAX_ITEMS).map((x) => formatValue(x, depth + 1, seen)), o.size)} }`;
    const entries = Object.entries(o);
    if (entries.length === 0) return '{}';
    const items = entries.slice(0, MAX_ITEMS).map(([k, x]) => `${/^[A-Za-z_$][\w$]*$/.test(k) ? k : quote(k)}: ${formatValue(x, depth + 1, seen)}`);
    return `{ ${list(items, entries.length)} }`;
  } finally {
    seen.delete(o);
  }
}

function list(items: string[], total: number): string {
  const more = total - items.length;
  return items.join(', ') + (more > 0 ? `, ... ${more} more item${more === 1 ? '' : 's'}` : '');
}

function quote(s: string): string {
  return "'" + s.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n') + "'";
}
