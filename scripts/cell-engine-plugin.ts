import { fileURLToPath } from 'node:url';
import { build, type Plugin, type Rolldown } from 'vite';

const ID = 'virtual:cell-engine';
const RESOLVED = '\0' + ID;
const ENTRY = fileURLToPath(new URL('../src/code-cell/engine/inside.ts', import.meta.url));

/**
 * `import source from 'virtual:cell-engine'`: the code cells' runtime
 * (src/code-cell/engine/inside.ts and what it imports) bundled into one
 * classic script, as text, for the cells' engine to evaluate
 * (src/code-cell/engine/quickjs-cell.ts). The engine has no module loader
 * and no way to fetch, so the script comes as a string inside the code
 * that starts the engine. Its one global, `cellEngine`, holds the entry's
 * exports. Used by the page's build and dev server (the cells' worker
 * imports it) and by the tests.
 */
export function cellEnginePlugin(): Plugin {
  let bundled: Promise<{ code: string; files: string[] }> | null = null;
  let files = new Set<string>();
  return {
    name: 'workbook-cell-engine',
    resolveId(id) {
      return id === ID ? RESOLVED : null;
    },
    async load(id) {
      if (id !== RESOLVED) return null;
      bundled ??= bundle();
      const out = await bundled;
      files = new Set(out.files);
      for (const f of out.files) this.addWatchFile(f);
      return `export default ${JSON.stringify(out.code)};`;
    },
    watchChange(id) {
      if (files.has(id)) bundled = null;
    },
  };
}

async function bundle(): Promise<{ code: string; files: string[] }> {
  const result = await build({
    configFile: false,
    logLevel: 'silent',
    publicDir: false,
    build: {
      write: false,
      emptyOutDir: false,
      target: 'es2022',
      minify: true,
      lib: { entry: ENTRY, formats: ['iife'], name: 'cellEngine' },
      rolldownOptions: { output: { exports: 'named' } },
    },
  });
  const outputs = (Array.isArray(result) ? result : [result]) as Rolldown.RolldownOutput[];
  const chunk = outputs.flatMap((o) => o.output).find((c): c is Rolldown.OutputChunk => c.type === 'chunk');
  if (chunk === undefined) throw new Error('the cell engine bundle has no code');
  return { code: chunk.code, files: chunk.moduleIds.filter((m) => !m.startsWith('\0')) };
}
