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
 * source files each was built from (esbuild's metafile). A program listed in
 * CACHED_ENTRIES is also bundled as CommonJS (dist-node/<name>.cjs), which
 * runCached starts through V8's code cache: see loadWithCodeCache.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Script } from 'node:vm';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const OUT_DIR = join(ROOT, 'dist-node');

/** Bundle name -> its entry point. */
export const ENTRIES = {
  server: 'src/node/server.ts',
};

/** Bundle name -> a module exporting the program's `main`, bundled as CommonJS for runCached. */
const CACHED_ENTRIES = {
  server: 'src/node/server-main.ts',
};

function paths(name) {
  return { out: join(OUT_DIR, `${name}.mjs`), cjs: join(OUT_DIR, `${name}.cjs`), inputs: join(OUT_DIR, `${name}.inputs.json`) };
}

/** True when the bundle is missing or any file it was built from is newer than it. */
function isStale(name) {
  const { out, cjs, inputs } = paths(name);
  if (!existsSync(out) || !existsSync(inputs) || (name in CACHED_ENTRIES && !existsSync(cjs))) return true;
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
  const { out, cjs, inputs } = paths(name);
  mkdirSync(OUT_DIR, { recursive: true });
  // Written beside the final name and renamed, so that a program starting
  // while another builds never imports half a file.
  const tmp = `${out}.${process.pid}.tmp`;
  const options = {
    absWorkingDir: ROOT,
    bundle: true,
    platform: 'node',
    target: 'node20',
    metafile: true,
    logLevel: 'warning',
    // Packages stay as imports of node_modules, as they are under tsx.
    packages: 'external',
  };
  const result = await esbuild({ ...options, entryPoints: [ENTRIES[name]], format: 'esm', outfile: tmp });
  const files = new Set(Object.keys(result.metafile.inputs));
  if (name in CACHED_ENTRIES) {
    const cjsResult = await esbuild({ ...options, entryPoints: [CACHED_ENTRIES[name]], format: 'cjs', outfile: `${cjs}.${process.pid}.tmp` });
    for (const f of Object.keys(cjsResult.metafile.inputs)) files.add(f);
  }
  writeFileSync(`${inputs}.${process.pid}.tmp`, JSON.stringify([...files]));
  if (name in CACHED_ENTRIES) renameSync(`${cjs}.${process.pid}.tmp`, cjs);
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

/**
 * Runs a bundle's `main` from its CommonJS form through V8's code cache:
 * parsing and compiling the 1.3 MB bundle is the largest part of a
 * start's CPU time, and Node 20 has no compile cache for modules
 * (module.enableCompileCache came with Node 22). The cache is made after
 * the first start's `main` has run, so it holds the functions a start
 * compiles, and is used while the bundle stays the same.
 */
export async function runCached(name) {
  if (!(name in CACHED_ENTRIES)) throw new Error(`no cached bundle named ${name}`);
  await ensureBundle(name);
  const program = loadWithCodeCache(paths(name).cjs);
  await program.exports.main();
  // Kept from a start that left a server running (not from --version or a refused configuration), which compiles what starts use.
  if (program.cache !== 'used' && process.exitCode === undefined) setImmediate(() => program.keepCache());
}

/**
 * Loads a CommonJS file with V8's code cache kept beside it
 * (<file>.v8cache): the cache's first line is the SHA-256 of the file's
 * text and of this Node's version, so a cache made for another bundle or
 * another Node is never offered to V8 (V8 itself checks only the length
 * of the source). `cache` says whether V8 took the cache ('used'), refused
 * it ('rejected') or there was none ('none'); keepCache() writes the cache
 * of what has been compiled so far.
 *
 *   const p = loadWithCodeCache('dist-node/server.cjs');
 *   await p.exports.main();
 *   if (p.cache !== 'used') p.keepCache();
 */
export function loadWithCodeCache(file) {
  const source = readFileSync(file, 'utf8');
  const hash = createHash('sha256').update(process.version).update('\0').update(source).digest('hex');
  const cacheFile = `${file}.v8cache`;
  let cachedData;
  try {
    const kept = readFileSync(cacheFile);
    if (kept.subarray(0, 65).toString('latin1') === `${hash}\n`) cachedData = kept.subarray(65);
  } catch {
    // No cache yet.
  }
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {"use strict";${source}\n})`, { filename: file, cachedData });
  const module = { exports: {} };
  script.runInThisContext().call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
  return {
    exports: module.exports,
    cache: cachedData === undefined ? 'none' : script.cachedDataRejected ? 'rejected' : 'used',
    keepCache() {
      const tmp = `${cacheFile}.${process.pid}.tmp`;
      writeFileSync(tmp, Buffer.concat([Buffer.from(`${hash}\n`, 'latin1'), script.createCachedData()]));
      renameSync(tmp, cacheFile);
    },
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const name of Object.keys(ENTRIES)) await build(name);
}
