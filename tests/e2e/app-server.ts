/**
 * The built workbook, served for a real browser: one production build
 * (vite build, into a fresh temporary folder so parallel runs never share
 * one), then a small static file server on a free port of 127.0.0.1 that
 * serves nothing but that folder.
 */
import { createServer, type Server } from 'node:http';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join, normalize, sep } from 'node:path';
import type { AddressInfo } from 'node:net';
import { initialJavaScript, modulesLoadedWith, type BuiltFile, type InitialJavaScript } from '../../scripts/initial-javascript.js';

export const CHROMIUM_PATH = '/usr/bin/chromium';
export const HAVE_CHROMIUM = existsSync(CHROMIUM_PATH);
/** In CI the browser must be there (.ci/run installs it); elsewhere the browser tests skip, and say so. */
export const CHROMIUM_REQUIRED = process.env.CI === 'true' || process.env.REQUIRE_CHROMIUM === '1';

export function chromiumSkipNotice(): string {
  return `SKIPPED: ${CHROMIUM_PATH} not found (install Debian's chromium to run the browser tests in tests/e2e)`;
}

/** The browser's flags: headless, no GPU, nothing fetched behind the page's back. */
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-dev-shm-usage'];

const root = join(import.meta.dirname, '../..');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

export interface ServedApp {
  readonly url: string;
  /** What the build printed about each file: name and size in bytes. */
  readonly files: ReadonlyArray<{ name: string; bytes: number }>;
  /** The JavaScript the page loads before it runs (scripts/initial-javascript.ts). */
  readonly initialJs: InitialJavaScript;
  /** Every module (absolute path) whose code runs when `module` is first imported dynamically. */
  loadedWith(module: string): string[];
  close(): Promise<void>;
}

/** Builds the app and serves it. */
export async function buildAndServe(): Promise<ServedApp> {
  const outDir = await mkdtemp(join(tmpdir(), 'workbook-e2e-'));
  const { build } = await import('vite');
  // Vitest sets NODE_ENV to "test", which would bundle React's development
  // build; the browser must get what `npm run build` ships.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  let result: Awaited<ReturnType<typeof build>>;
  try {
    result = await build({
      root,
      mode: 'production',
      configFile: join(root, 'vite.config.ts'),
      logLevel: 'warn',
      build: { outDir, emptyOutDir: true, reportCompressedSize: false },
    });
  } finally {
    process.env.NODE_ENV = nodeEnv;
  }
  const outputs = (Array.isArray(result) ? result : [result]).flatMap((r) => ('output' in r ? r.output : []));
  const files = outputs.map((o) => ({ name: o.fileName, bytes: o.type === 'chunk' ? Buffer.byteLength(o.code) : typeof o.source === 'string' ? Buffer.byteLength(o.source) : o.source.length }));

  const server: Server = createServer((req, res) => {
    void (async () => {
      const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
      const file = normalize(join(outDir, path === '/' ? 'index.html' : path));
      if (req.method !== 'GET' || !(file + sep).startsWith(outDir + sep) || !(await isFile(file))) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
      res.end(await readFile(file));
    })().catch(() => res.writeHead(500).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    files,
    initialJs: initialJavaScript(outputs),
    loadedWith: (module) => modulesLoadedWith(outputs as unknown as BuiltFile[], module),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(outDir, { recursive: true, force: true });
    },
  };
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}
