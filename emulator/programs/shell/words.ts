/**
 * Splits a command line the way bash does for simple commands: words
 * separated by blanks; single quotes keep everything literal; double quotes
 * keep everything but `\"`, `\\`, `\$`, `` \` `` and variables; an unquoted
 * backslash escapes the next character; `#` at the start of a word begins a
 * comment. Output redirections (`>`, `>>`, `2>`, `2>>`, `2>&1`, `&>`) are
 * recognised; pipelines, lists, background jobs, subshells and input
 * redirection are refused with a message saying so.
 *
 *   parseLine('echo "a b" > /tmp/x', vars)
 *   // { words: [{ text: 'echo' }, { text: 'a b' }], redirects: [{ fd: 1, append: false, target: '/tmp/x' }] }
 *
 * Lines are byte strings, like everything the emulator handles.
 */

/** A word after quote removal, with what pathname expansion needs to know. */
export interface Word {
  readonly text: string;
  /**
   * The word as a glob pattern: unquoted `*`, `?` and `[` are wildcards,
   * every other character is escaped with a backslash. Null when the word
   * has no unquoted wildcard.
   */
  readonly pattern: string | null;
}

export interface Redirect {
  /** 1 for standard output, 2 for standard error. */
  readonly fd: 1 | 2;
  readonly append: boolean;
  /** A file name, or '&1' for 2>&1. */
  readonly target: string;
}

export type ParsedLine = { words: Word[]; redirects: Redirect[] } | { error: string };

/** Variables a line may expand ($HOME, $?, ...). */
export type VariableLookup = (name: string) => string;

const BLANK = new Set([' ', '\t', '\n']);
const WILDCARDS = new Set(['*', '?', '[']);

/** Why an operator we do not simulate is refused. */
const REFUSED: Record<string, string> = {
  '|': 'pipelines (|) are not simulated here: run one command per line',
  '||': 'command lists (||) are not simulated here: run one command per line',
  '&&': 'command lists (&&) are not simulated here: run one command per line',
  ';': 'command lists (;) are not simulated here: run one command per line',
  '&': 'background jobs (&) are not simulated here: servers started here run in the background already',
  '<': 'input redirection (<) is not simulated here',
  '(': 'subshells are not simulated here',
  ')': 'subshells are not simulated here',
};

export function parseLine(line: string, vars: VariableLookup): ParsedLine {
  const words: Word[] = [];
  const redirects: Redirect[] = [];
  let pendingRedirect: { fd: 1 | 2; append: boolean; both: boolean } | null = null;
  const n = line.length;
  let i = 0;

  const finishWord = (w: Word): string | null => {
    if (pendingRedirect !== null) {
      const r = pendingRedirect;
      pendingRedirect = null;
      if (w.text === '') return 'bash: : No such file or directory';
      redirects.push({ fd: r.fd, append: r.append, target: w.text });
      if (r.both) redirects.push({ fd: 2, append: r.append, target: '&1' });
      return null;
    }
    words.push(w);
    return null;
  };

  for (;;) {
    while (i < n && BLANK.has(line[i]!)) i++;
    if (i >= n) break;
    const c = line[i]!;
    if (c === '#') break;

    // Operators.
    const two = line.slice(i, i + 2);
    const redirect = readRedirect(line, i);
    if (redirect !== null) {
      if (pendingRedirect !== null) return { error: `bash: syntax error near unexpected token \`${redirect.token}'` };
      i += redirect.token.length;
      if (redirect.dupToStdout) {
        redirects.push({ fd: 2, append: false, target: '&1' });
        continue;
      }
      pendingRedirect = { fd: redirect.fd, append: redirect.append, both: redirect.both };
      continue;
    }
    if (two === '||' || two === '&&') return { error: `bash: ${REFUSED[two]}` };
    if (REFUSED[c] !== undefined) return { error: `bash: ${REFUSED[c]}` };

    // A word.
    let text = '';
    let pattern = '';
    let hasWildcard = false;
    let quoted = false;
    let expandedEmpty = false;
    while (i < n) {
      const ch = line[i]!;
      if (BLANK.has(ch) || REFUSED[ch] !== undefined || ch === '>') break;
      if (ch === '\\') {
        if (i + 1 >= n) {
          i++;
          break;
        }
        const next = line[i + 1]!;
        text += next;
        pattern += '\\' + next;
        quoted = true;
        i += 2;
        continue;
      }
      if (ch === "'") {
        const end = line.indexOf("'", i + 1);
        if (end < 0) return { error: "bash: unexpected EOF while looking for matching `''" };
        const s = line.slice(i + 1, end);
        text += s;
        pattern += escapeGlob(s);
        quoted = true;
        i = end + 1;
        continue;
      }
      if (ch === '"') {
        i++;
        let closed = false;
        while (i < n) {
          const d = line[i]!;
          if (d === '"') {
            closed = true;
            i++;
            break;
          }
          if (d === '\\' && i + 1 < n && '"\\$`'.includes(line[i + 1]!)) {
            text += line[i + 1]!;
            pattern += '\\' + line[i + 1]!;
            i += 2;
            continue;
          }
          if (d === '$') {
            const v = readVariable(line, i, vars);
            if (v !== null) {
              text += v.value;
              pattern += escapeGlob(v.value);
              i = v.end;
              continue;
            }
          }
          text += d;
          pattern += escapeGlob(d);
          i++;
        }
        if (!closed) return { error: 'bash: unexpected EOF while looking for matching `"\'' };
        quoted = true;
        continue;
      }
      if (ch === '$') {
        const v = readVariable(line, i, vars);
        if (v !== null) {
          text += v.value;
          pattern += escapeGlob(v.value);
          expandedEmpty = v.value === '' && text === '';
          i = v.end;
          continue;
        }
      }
      if (ch === '~' && text === '' && !quoted && (i + 1 >= n || line[i + 1] === '/' || BLANK.has(line[i + 1]!))) {
        const home = vars('HOME');
        text += home;
        pattern += escapeGlob(home);
        i++;
        continue;
      }
      if (WILDCARDS.has(ch)) hasWildcard = true;
      text += ch;
      pattern += ch;
      i++;
    }
    // An unquoted expansion that came out empty is no word at all.
    if (text === '' && !quoted && expandedEmpty) continue;
    const err = finishWord({ text, pattern: hasWildcard ? pattern : null });
    if (err !== null) return { error: err };
  }
  if (pendingRedirect !== null) return { error: "bash: syntax error near unexpected token `newline'" };
  return { words, redirects };
}

interface RedirectToken {
  token: string;
  fd: 1 | 2;
  append: boolean;
  /** &> and &>>: both outputs to the file. */
  both: boolean;
  /** 2>&1 */
  dupToStdout: boolean;
}

/** An output redirection operator starting at `i`, if there is one. */
function readRedirect(line: string, i: number): RedirectToken | null {
  const rest = line.slice(i, i + 4);
  if (rest.startsWith('2>&1')) return { token: '2>&1', fd: 2, append: false, both: false, dupToStdout: true };
  if (rest.startsWith('&>>')) return { token: '&>>', fd: 1, append: true, both: true, dupToStdout: false };
  if (rest.startsWith('&>')) return { token: '&>', fd: 1, append: false, both: true, dupToStdout: false };
  // A digit is a file descriptor only when the operator follows it directly
  // and it starts a word ("2>x"); "a2>x" is the word "a2" then ">x".
  const startsWord = i === 0 || BLANK.has(line[i - 1]!);
  if (startsWord && rest.startsWith('2>>')) return { token: '2>>', fd: 2, append: true, both: false, dupToStdout: false };
  if (startsWord && rest.startsWith('2>')) return { token: '2>', fd: 2, append: false, both: false, dupToStdout: false };
  if (startsWord && rest.startsWith('1>>')) return { token: '1>>', fd: 1, append: true, both: false, dupToStdout: false };
  if (startsWord && rest.startsWith('1>')) return { token: '1>', fd: 1, append: false, both: false, dupToStdout: false };
  if (rest.startsWith('>>')) return { token: '>>', fd: 1, append: true, both: false, dupToStdout: false };
  if (rest.startsWith('>')) return { token: '>', fd: 1, append: false, both: false, dupToStdout: false };
  return null;
}

/** `$NAME`, `${NAME}`, `$?` or `$$` at `i`; null when the `$` is literal. */
function readVariable(line: string, i: number, vars: VariableLookup): { value: string; end: number } | null {
  const next = line[i + 1];
  if (next === '?' || next === '$') return { value: vars(next), end: i + 2 };
  if (next === '{') {
    const close = line.indexOf('}', i + 2);
    if (close < 0) return null;
    const name = line.slice(i + 2, close);
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return null;
    return { value: vars(name), end: close + 1 };
  }
  const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(line.slice(i + 1));
  if (m === null) return null;
  return { value: vars(m[0]), end: i + 1 + m[0].length };
}

function escapeGlob(s: string): string {
  let out = '';
  for (const ch of s) out += WILDCARDS.has(ch) || ch === '\\' ? '\\' + ch : ch;
  return out;
}

/**
 * Whether a name matches a glob pattern from `Word.pattern` (fnmatch
 * without flags, except that a leading dot must be matched explicitly, as
 * bash requires by default).
 */
export function globMatches(pattern: string, name: string): boolean {
  if (name.startsWith('.') && !pattern.startsWith('.') && !pattern.startsWith('\\.')) return false;
  return new RegExp('^' + globToRegExp(pattern) + '$', 's').test(name);
}

function globToRegExp(p: string): string {
  let out = '';
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    if (c === '\\' && i + 1 < p.length) {
      out += regExpLiteral(p[++i]!);
    } else if (c === '*') {
      out += '.*';
    } else if (c === '?') {
      out += '.';
    } else if (c === '[') {
      const close = p.indexOf(']', i + 2);
      if (close < 0) {
        out += '\\[';
        continue;
      }
      let body = p.slice(i + 1, close);
      let negate = false;
      if (body[0] === '!' || body[0] === '^') {
        negate = true;
        body = body.slice(1);
      }
      out += '[' + (negate ? '^' : '') + body.replace(/[\\\]^]/g, (m) => '\\' + m) + ']';
      i = close;
    } else {
      out += regExpLiteral(c);
    }
  }
  return out;
}

function regExpLiteral(c: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(c) ? '\\' + c : c;
}
