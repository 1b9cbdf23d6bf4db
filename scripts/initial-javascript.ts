import { gzipSync } from 'node:zlib';
import type { Plugin } from 'vite';

/** The most JavaScript, gzipped, a browser may have to load before the workbook is usable. */
export const INITIAL_JS_BUDGET_BYTES = 300 * 1024;

/** What a build's output says of a chunk (Rollup's OutputChunk, the part read here). */
interface BuiltChunk {
  readonly type: 'chunk';
  readonly fileName: string;
  readonly isEntry: boolean;
  readonly imports: readonly string[];
  readonly code: string;
  /** The modules whose code the chunk holds (absolute paths). */
  readonly moduleIds?: readonly string[];
  /** The module the chunk stands for, when it is an entry or a dynamic import's target. */
  readonly facadeModuleId?: string | null;
}

export type BuiltFile = BuiltChunk | { readonly type: 'asset'; readonly fileName: string };

export interface InitialJavaScript {
  /** Each chunk the page loads before it runs, gzipped (level 9, as static hosts serve it). */
  readonly chunks: ReadonlyArray<{ readonly fileName: string; readonly gzipBytes: number }>;
  readonly gzipBytes: number;
}

/**
 * The page's initial JavaScript: its entry chunks and every chunk they
 * import statically, which the browser must fetch and run before the
 * page does anything. Chunks behind a dynamic import() (the lessons, the
 * host shell, the disk view, the commands kept apart) are not counted:
 * they load when something needs them.
 */
export function initialJavaScript(files: readonly BuiltFile[]): InitialJavaScript {
  const byName = new Map<string, BuiltChunk>();
  for (const f of files) if (f.type === 'chunk') byName.set(f.fileName, f);
  const seen = new Set<string>();
  const visit = (name: string): void => {
    if (seen.has(name)) return;
    seen.add(name);
    for (const i of byName.get(name)?.imports ?? []) visit(i);
  };
  for (const c of byName.values()) if (c.isEntry) visit(c.fileName);
  const chunks = [...seen]
    .map((name) => ({ fileName: name, gzipBytes: gzipSync(byName.get(name)!.code, { level: 9 }).length }))
    .sort((a, b) => b.gzipBytes - a.gzipBytes);
  return { chunks, gzipBytes: chunks.reduce((n, c) => n + c.gzipBytes, 0) };
}

/**
 * Every module whose code the browser runs when `module` is imported
 * dynamically: the modules of its chunk and of every chunk that chunk
 * imports statically (the page's first chunks included). Empty when no
 * chunk stands for `module`.
 */
export function modulesLoadedWith(files: readonly BuiltFile[], module: string): string[] {
  const byName = new Map<string, BuiltChunk>();
  for (const f of files) if (f.type === 'chunk') byName.set(f.fileName, f);
  const start = [...byName.values()].find((c) => c.facadeModuleId === module);
  if (start === undefined) return [];
  const seen = new Set<string>();
  const visit = (name: string): void => {
    if (seen.has(name)) return;
    seen.add(name);
    for (const i of byName.get(name)?.imports ?? []) visit(i);
  };
  visit(start.fileName);
  return [...seen].flatMap((name) => byName.get(name)!.moduleIds ?? []);
}

const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;

/** Prints the initial JavaScript at the end of a build, chunk by chunk, against the budget. */
export function initialJavaScriptReport(): Plugin {
  let report: string | null = null;
  let quiet = false;
  return {
    name: 'workbook-initial-javascript',
    apply: 'build',
    configResolved(config) {
      // A build asked for warnings only (the browser tests' builds) prints nothing here either.
      quiet = config.logLevel === 'warn' || config.logLevel === 'error' || config.logLevel === 'silent';
    },
    generateBundle(_options, bundle) {
      if (quiet) return;
      const initial = initialJavaScript(Object.values(bundle) as unknown as BuiltFile[]);
      if (initial.chunks.length === 0) return;
      const over = initial.gzipBytes > INITIAL_JS_BUDGET_BYTES;
      report = [
        `initial JavaScript: ${kb(initial.gzipBytes)} gzipped (budget ${kb(INITIAL_JS_BUDGET_BYTES)})${over ? ', OVER BUDGET' : ''}`,
        ...initial.chunks.map((c) => `  ${c.fileName.padEnd(44)} ${kb(c.gzipBytes).padStart(9)}`),
      ].join('\n');
    },
    closeBundle() {
      if (report !== null) console.log(report);
      report = null;
    },
  };
}
