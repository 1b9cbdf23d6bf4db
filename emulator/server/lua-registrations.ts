/**
 * The functions a Lua library registers, read from its source without
 * running it: the emulator has no Lua engine. Redis learns them by running
 * the library, whose top level calls redis.register_function (src/
 * function_lua.c luaRegisterFunction) in one of two documented forms:
 *
 *   redis.register_function('name', function(keys, args) ... end)
 *   redis.register_function{function_name='name', callback=..., flags={'no-writes'}, description='...'}
 *
 * Calls whose name, flags or description are literal strings are found;
 * a call whose arguments are computed is not (FUNCTION LIST then leaves
 * that function out, while the library itself is kept whole).
 */

export interface RegisteredFunction {
  name: string;
  description: string | null;
  /** Script flags in the order FUNCTION LIST prints them (scripts_flags_def in src/script.c). */
  flags: string[];
}

/** scripts_flags_def, in order. */
const SCRIPT_FLAGS = ['no-writes', 'allow-oom', 'allow-stale', 'no-cluster', 'allow-cross-slot-keys'];

type Token = { kind: 'name' | 'string' | 'punct'; text: string };

/** Lua's tokens, without comments and whitespace; numbers and operators come out as punctuation. */
function* tokens(src: string): Generator<Token> {
  let i = 0;
  const n = src.length;
  while (i < n) {
    const c = src[i]!;
    if (c === '-' && src[i + 1] === '-') {
      const level = longBracketLevel(src, i + 2);
      if (level >= 0) {
        i = skipLongBracket(src, i + 2, level).end;
      } else {
        const nl = src.indexOf('\n', i);
        i = nl < 0 ? n : nl + 1;
      }
      continue;
    }
    if (c === '[' && longBracketLevel(src, i) >= 0) {
      const r = skipLongBracket(src, i, longBracketLevel(src, i));
      yield { kind: 'string', text: r.text };
      i = r.end;
      continue;
    }
    if (c === '"' || c === "'") {
      const r = quoted(src, i);
      yield { kind: 'string', text: r.text };
      i = r.end;
      continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      let j = i + 1;
      while (j < n && /[A-Za-z0-9_]/.test(src[j]!)) j++;
      yield { kind: 'name', text: src.slice(i, j) };
      i = j;
      continue;
    }
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    yield { kind: 'punct', text: c };
    i++;
  }
}

/** The level of a long bracket opening at `i` ("[[" is 0, "[==[" is 2), or -1. */
function longBracketLevel(src: string, i: number): number {
  if (src[i] !== '[') return -1;
  let j = i + 1;
  while (src[j] === '=') j++;
  return src[j] === '[' ? j - i - 1 : -1;
}

function skipLongBracket(src: string, i: number, level: number): { text: string; end: number } {
  const open = level + 2;
  const close = ']' + '='.repeat(level) + ']';
  const at = src.indexOf(close, i + open);
  const end = at < 0 ? src.length : at + close.length;
  let text = src.slice(i + open, at < 0 ? src.length : at);
  // A newline right after the opening bracket is not part of the string.
  if (text.startsWith('\r\n')) text = text.slice(2);
  else if (text.startsWith('\n')) text = text.slice(1);
  return { text, end };
}

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', f: '\f', v: '\v', '\\': '\\', '"': '"', "'": "'", '\n': '\n' };

function quoted(src: string, i: number): { text: string; end: number } {
  const q = src[i]!;
  let text = '';
  let j = i + 1;
  while (j < src.length && src[j] !== q) {
    const c = src[j]!;
    if (c === '\n') break;
    if (c === '\\' && j + 1 < src.length) {
      const e = src[j + 1]!;
      const dec = /^\d{1,3}/.exec(src.slice(j + 1, j + 4));
      if (dec !== null) {
        text += String.fromCharCode(Number(dec[0]) & 0xff);
        j += 1 + dec[0].length;
        continue;
      }
      text += ESCAPES[e] ?? e;
      j += 2;
      continue;
    }
    text += c;
    j++;
  }
  return { text, end: j + 1 };
}

/** The registrations with literal arguments, in source order. */
export function findRegisteredFunctions(src: string): RegisteredFunction[] {
  const t = [...tokens(src)];
  const out: RegisteredFunction[] = [];
  for (let i = 0; i + 3 < t.length; i++) {
    if (!(t[i]!.text === 'redis' && t[i + 1]!.text === '.' && t[i + 2]!.text === 'register_function')) continue;
    let j = i + 3;
    let paren = false;
    if (t[j]!.text === '(') {
      paren = true;
      j++;
    }
    const first = t[j];
    if (first === undefined) break;
    if (first.kind === 'string' && paren) {
      out.push({ name: first.text, description: null, flags: [] });
      continue;
    }
    if (first.text === '{') {
      const f = tableRegistration(t, j);
      if (f !== null) out.push(f);
    }
  }
  return out;
}

/** The fields of `{function_name='x', flags={...}, description='...'}` starting at t[at] = '{'. */
function tableRegistration(t: Token[], at: number): RegisteredFunction | null {
  let name: string | null = null;
  let description: string | null = null;
  const flags = new Set<string>();
  let depth = 0;
  for (let j = at; j < t.length; j++) {
    const tok = t[j]!;
    if (tok.text === '{' || tok.text === '(') depth++;
    else if (tok.text === '}' || tok.text === ')') {
      depth--;
      if (depth === 0) break;
    }
    if (depth !== 1 || tok.kind !== 'name' || t[j + 1]?.text !== '=') continue;
    const value = t[j + 2];
    if (value === undefined) break;
    if (tok.text === 'function_name' && value.kind === 'string') name = value.text;
    else if (tok.text === 'description' && value.kind === 'string') description = value.text;
    else if (tok.text === 'flags' && value.text === '{') {
      for (let k = j + 3; k < t.length && t[k]!.text !== '}'; k++) if (t[k]!.kind === 'string') flags.add(t[k]!.text);
    }
  }
  if (name === null) return null;
  return { name, description, flags: SCRIPT_FLAGS.filter((f) => flags.has(f)) };
}
