import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import { initialJavaScriptReport } from './scripts/initial-javascript.js';

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

export default defineConfig({
  // Relative asset paths: dist/ works from any folder of any static host.
  base: './',
  plugins: [react(), devContentSecurityPolicy(), initialJavaScriptReport()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // The emulator is most of the bundle; one chunk of a few hundred KB is expected.
    chunkSizeWarningLimit: 2048,
  },
  server: { host: '127.0.0.1' },
  preview: { host: '127.0.0.1' },
});
