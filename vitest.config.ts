import { defineConfig } from 'vitest/config';
import { cellEnginePlugin } from './scripts/cell-engine-plugin.js';

export default defineConfig({
  // Code cells run in their engine in the tests too (src/code-cell/engine).
  plugins: [cellEnginePlugin()],
  test: {
    include: ['tests/**/*.test.ts'],
    globalSetup: ['tests/differential/global-setup.ts'],
    setupFiles: ['tests/support/emulator-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
