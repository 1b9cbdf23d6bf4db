import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    globalSetup: ['tests/differential/global-setup.ts'],
    setupFiles: ['tests/support/emulator-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
