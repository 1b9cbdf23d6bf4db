/**
 * How GNU coreutils 9 shows a file name on a terminal (quoting style
 * "shell-escape"): plain when nothing in it is special to a shell, in
 * single quotes otherwise, in double quotes when it holds a single quote
 * but nothing double quotes would expand, and control characters as $'\t'.
 * The same style with "always" quotes names in error messages
 * (ls: cannot access 'x': ...).
 */

/** Characters that never need quoting (gnulib's quotearg, shell styles). */
const SAFE = /^[A-Za-z0-9%+,\-./:@_\x80-\xff]$/;

function needsQuoting(name: string): boolean {
  if (name === '') return true;
  for (let i = 0; i < name.length; i++) {
    const c = name[i]!;
    if (SAFE.test(c)) continue;
    // A tilde or hash is special only where a word starts.
    if ((c === '~' || c === '#') && i !== 0) continue;
    return true;
  }
  return false;
}

const CONTROL = /[\x00-\x1f\x7f]/;

/** The name as ls prints it on a terminal. */
export function shellQuote(name: string, always = false): string {
  if (!always && !needsQuoting(name)) return name;
  if (!CONTROL.test(name)) {
    if (!name.includes("'")) return `'${name}'`;
    if (!/[$`\\!"]/.test(name)) return `"${name}"`;
  }
  // Printable runs in single quotes, quotes and control characters between.
  let out = '';
  let run = '';
  const flush = (): void => {
    if (run !== '') out += `'${run}'`;
    run = '';
  };
  for (const c of name) {
    if (c === "'") {
      flush();
      out += "\\'";
    } else if (CONTROL.test(c)) {
      flush();
      out += "$'" + controlEscape(c) + "'";
    } else {
      run += c;
    }
  }
  flush();
  return out;
}

function controlEscape(c: string): string {
  const code = c.charCodeAt(0);
  const named: Record<number, string> = { 7: '\\a', 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r', 27: '\\E' };
  return named[code] ?? '\\' + code.toString(8).padStart(3, '0');
}

/** A name as quoted in coreutils' error messages ('x'). */
export function quoteArg(name: string): string {
  return shellQuote(name, true);
}
