import { readFileSync } from 'node:fs';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import { cellEnginePlugin } from './scripts/cell-engine-plugin.js';
import { initialJavaScriptReport } from './scripts/initial-javascript.js';
import { lessonCataloguePlugin } from './scripts/lesson-catalogue-plugin.js';

/**
 * The dev server needs what the shipped page forbids: React Refresh's
 * inline preamble and the hot-reload websocket. index.html carries the
 * strict policy; in dev only, this loosens it for those two, so the build
 * is always checked against the real one.
 */
function devContentSecurityPolicy(): Plugin {
  return {
    name: 'workbook-dev-csp',
    apply: 'serve',
    transformIndexHtml(html) {
      return html.replace(/(<meta http-equiv="Content-Security-Policy" content=")([^"]*)/, (_m, head: string, policy: string) =>
        head + policy.replace("script-src 'self'", "script-src 'self' 'unsafe-inline'").replace("connect-src 'self'", "connect-src 'self' ws: wss:"),
      );
    },
  };
}

/**
 * The code cells' sandbox frame (public/cell-sandbox.html) in dev only:
 * the dev server serves the cells' worker as a module, and a module
 * worker's imports are fetched as workers are, so the frame's policy
 * must let same-origin worker scripts load; every request of any other
 * kind (connect-src, script from elsewhere) stays refused, and cells
 * have no Worker constructor (src/web/code-cell/lockdown.ts). The build
 * serves one classic script and keeps the file's stricter policy.
 */
function devSandboxPolicy(): Plugin {
  return {
    name: 'workbook-dev-sandbox-policy',
    apply: 'serve',
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        if (req.url?.split('?')[0] !== '/cell-sandbox.html') return next();
        const html = readFileSync(new URL('./public/cell-sandbox.html', import.meta.url), 'utf8').replace('worker-src blob:', "worker-src blob: 'self'");
        res.setHeader('content-type', 'text/html; charset=utf-8');
        res.end(html);
      });
    },
  };
}

export default defineConfig({
  // Relative asset paths: dist/ works from any folder of any static host.
  base: './',
  plugins: [react(), devContentSecurityPolicy(), devSandboxPolicy(), cellEnginePlugin(), lessonCataloguePlugin(), initialJavaScriptReport()],
  // The cells' worker is bundled on its own, with its own plugins: it carries the cells' runtime for their engine.
  worker: { plugins: () => [cellEnginePlugin()] },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // The emulator is most of the bundle; one chunk of a few hundred KB is expected.
    chunkSizeWarningLimit: 2048,
  },
  // The cells' engine is first imported by their worker, after the page has loaded: found only then, the dev
  // server would bundle it anew and reload the page under a running cell.
  optimizeDeps: { include: ['quickjs-emscripten-core', '@jitl/quickjs-wasmfile-release-sync', '@jitl/quickjs-wasmfile-release-sync/emscripten-module'] },
  server: { host: '127.0.0.1' },
  preview: { host: '127.0.0.1' },
});
