import type { CellError } from './protocol.js';

/**
 * Makes an async function of `params` from `body`, its code named `url`
 * in stacks; throws a SyntaxError when the body does not parse. The cell's
 * engine provides it (engine/quickjs-cell.ts).
 */
export type CompileFunction = (params: readonly string[], body: string, url: string) => (...args: unknown[]) => Promise<unknown>;

export interface CompiledCell {
  readonly run: (...args: unknown[]) => Promise<unknown>;
  /** Where an error thrown by the cell points in its source. */
  mapError(e: unknown): CellError;
}

/**
 * Turns a cell's source into an async function of the given parameters
 * (the cell's API), in strict mode, so `await` works at the top of a cell
 * and names it did not declare are errors. A syntax error comes back as a
 * CellError with its line instead. Nothing here judges what the code
 * does: the engine it runs in has nothing but the cell's API to reach
 * (engine/quickjs-cell.ts).
 *
 *   const c = compileCell(compile, ['print'], 'print(1 + 1)', 'cell-a.js');
 *   if (!('run' in c)) show(c); else await c.run(print);
 */
export function compileCell(compile: CompileFunction, params: readonly string[], source: string, url: string): CompiledCell | CellError {
  let run: (...args: unknown[]) => Promise<unknown>;
  try {
    run = compile(params, `"use strict";\n${source}`, url);
  } catch (e) {
    return syntaxError(compile, params, source, url, e instanceof Error ? e : new Error(String(e)));
  }
  const firstLine = probeFirstLine(compile, params, url);
  const lines = source.split('\n').length;
  return {
    run,
    mapError(e: unknown): CellError {
      if (!(e instanceof Error)) return { name: 'Error', message: `Uncaught ${typeof e === 'string' ? JSON.stringify(e) : String(e)}`, line: null, column: null };
      const at = firstLine === null ? null : locate(e.stack ?? '', url, firstLine, lines);
      return { name: e.name, message: e.message, line: at?.line ?? null, column: at?.column ?? null };
    },
  };
}

/**
 * The line a stack reports for the first line of a cell's source, learned
 * from a probe compiled the same way: engines number the lines of the
 * whole function they build around the body, which begins a line or two
 * down. An async function runs synchronously up to its first await, so the
 * probe hands its error back at once.
 */
function probeFirstLine(compile: CompileFunction, params: readonly string[], url: string): number | null {
  const probeUrl = url + '-probe';
  let stack = '';
  try {
    const probe = compile(params, `"use strict";\narguments[0](new Error('probe'));`, probeUrl);
    void probe((e: Error) => {
      stack = e.stack ?? '';
    });
  } catch {
    return null;
  }
  const escaped = probeUrl.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = new RegExp(`${escaped}:(\\d+):\\d+`).exec(stack);
  return m === null ? null : Number(m[1]);
}

/** The first frame of the cell in a stack: its line in the source (1-based) and column. */
function locate(stack: string, url: string, firstLine: number, lines: number): { line: number; column: number } | null {
  const escaped = url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = new RegExp(`${escaped}:(\\d+):(\\d+)`).exec(stack);
  if (m === null) return null;
  const line = Number(m[1]) - firstLine + 1;
  if (line < 1 || line > lines) return null;
  return { line, column: Number(m[2]) };
}

/**
 * Where a syntax error is, and what to say about it. Engines do not say
 * where an error in code given to a Function constructor is, so the
 * source is compiled a line at a time, each prefix followed by an open
 * comment that swallows the end the constructor adds: a prefix that is
 * merely unfinished then fails on that comment, with the engine's message
 * for a stray token, and the first prefix that fails with the whole
 * source's own error holds it. A source that fails only on the comment
 * either has a stray token of its own (it fails the same way without the
 * comment: the first prefix that does holds it) or ended with something
 * left open.
 */
function syntaxError(compile: CompileFunction, params: readonly string[], source: string, url: string, error: Error): CellError {
  const failure = (body: string): string | null => {
    try {
      compile(params, `"use strict";\n${body}`, url);
      return null;
    } catch (e) {
      return e instanceof Error ? e.message : String(e);
    }
  };
  const lines = source.split('\n');
  const prefix = (k: number) => lines.slice(0, k).join('\n');
  const stray = failure('\n/*');
  const own = failure(`${source}\n/*`);
  const at = (line: number): CellError => ({ name: error.name, message: error.message, line, column: null });
  if (own !== stray) {
    for (let k = 1; k <= lines.length; k++) if (failure(`${prefix(k)}\n/*`) === own) return at(k);
  } else if (failure(source) === stray) {
    for (let k = 1; k <= lines.length; k++) if (failure(prefix(k)) === stray) return at(k);
  } else {
    return { name: error.name, message: 'The cell ends too soon: a bracket, a brace, a parenthesis or a quote is still open.', line: lines.length, column: null };
  }
  return at(lines.length);
}
