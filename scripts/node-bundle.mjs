/**
 * Node programs (`npm run server`) run from one bundled JavaScript file
 * rather than compiling TypeScript at every start: the bundle is built once
 * with esbuild and rebuilt only when one of the files it was built from has
 * changed since, so a start costs a few hundred stat calls, not a compile.
 *
 *   node scripts/node-bundle.mjs          builds every bundle now
 *   import { ensureBundle } from '...'    returns a bundle's path, built if stale
 *
 * Bundles go to dist-node/<name>.mjs beside a <name>.inputs.json listing the
 * source files each was built from (esbuild's metafile).
 */
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const OUT_DIR = join(ROOT, 'dist-node');

/** Bundle name -> its entry point. */
export const ENTRIES = {
  server: 'src/node/server.ts',
};

function paths(name) {
  return { out: join(OUT_DIR, `${name}.mjs`), inputs: join(OUT_DIR, `${name}.inputs.json`) };
}

/** True when the bundle is missing or any file it was built from is newer than it. */
function isStale(name) {
  const { out, inputs } = paths(name);
  if (!existsSync(out) || !existsSync(inputs)) return true;
  const builtMs = statSync(out).mtimeMs;
  let files;
  try {
    files = JSON.parse(readFileSync(inputs, 'utf8'));
  } catch {
    return true;
  }
  for (const f of [...files, 'package-lock.json', 'scripts/node-bundle.mjs']) {
    let mtimeMs;
    try {
      mtimeMs = statSync(join(ROOT, f)).mtimeMs;
    } catch {
      // A source file that is gone means the sources moved: rebuild.
      return true;
    }
    if (mtimeMs > builtMs) return true;
  }
  return false;
}

async function build(name) {
  const { build: esbuild } = await import('esbuild');
  const { out, inputs } = paths(name);
  mkdirSync(OUT_DIR, { recursive: true });
  // Written beside the final name and renamed, so that a program starting
  // while another builds never imports half a file.
  const tmp = `${out}.${process.pid}.tmp`;
  const result = await esbuild({
    absWorkingDir: ROOT,
    entryPoints: [ENTRIES[name]],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: tmp,
    metafile: true,
    logLevel: 'warning',
    // Packages stay as imports of node_modules, as they are under tsx.
    packages: 'external',
  });
  writeFileSync(`${inputs}.${process.pid}.tmp`, JSON.stringify(Object.keys(result.metafile.inputs)));
  renameSync(tmp, out);
  renameSync(`${inputs}.${process.pid}.tmp`, inputs);
}

/** The bundle's path, rebuilt first if its sources changed. */
export async function ensureBundle(name) {
  if (!(name in ENTRIES)) throw new Error(`no bundle named ${name}`);
  if (isStale(name)) await build(name);
  return paths(name).out;
}

/** Imports (runs) a bundle in this process: process.argv is left as it is. */
export async function runBundle(name) {
  await import(pathToFileURL(await ensureBundle(name)).href);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const name of Object.keys(ENTRIES)) await build(name);
}
