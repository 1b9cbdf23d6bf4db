import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { cellEnginePlugin } from './scripts/cell-engine-plugin.js';
import { lessonCataloguePlugin } from './scripts/lesson-catalogue-plugin.js';

export default defineConfig({
  // Code cells run in their engine in the tests too (src/code-cell/engine); the page's lesson list is made from the lesson files.
  plugins: [cellEnginePlugin(), lessonCataloguePlugin()],
  test: {
    include: ['tests/**/*.test.ts'],
    globalSetup: ['tests/differential/global-setup.ts'],
    setupFiles: ['tests/support/emulator-setup.ts'],
    // Two files at a time even on a 2-core machine (Vitest's default there is one): most files wait on
    // Chromium, a real redis-server or a child process, so a second worker fills that time, and the whole
    // suite on such a machine takes about a fifth less.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
