import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';
import { builtinModules } from 'node:module';

// Node's built-in modules, both spellings (`fs` and `node:fs`).
const nodeBuiltins = builtinModules.flatMap((m) => [m, `node:${m}`]);

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'dist-node/', 'coverage/', '.tmp/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-constant-condition': ['error', { checkLoops: false }],
      'no-control-regex': 'off',
    },
  },
  {
    files: ['src/**/*.ts', 'tests/**/*.ts', 'scripts/**/*.{ts,mjs,js}', 'bench/**/*.ts', '*.config.ts', '*.config.js', '.dependency-cruiser.cjs'],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    // The web workbook runs in the browser: no Node, and React's hooks used by the rules.
    files: ['src/web/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      ...reactHooks.configs.flat.recommended.rules,
      'react-hooks/exhaustive-deps': 'error',
      'no-restricted-imports': ['error', {
        paths: nodeBuiltins.map((name) => ({ name, message: 'src/web runs in the browser: no Node built-ins.' })),
      }],
      'no-restricted-globals': ['error',
        { name: 'process', message: 'src/web runs in the browser.' },
        { name: 'require', message: 'src/web runs in the browser.' },
        { name: 'Buffer', message: 'src/web runs in the browser.' },
      ],
    },
  },
  {
    // The emulator lives in a simulated world: time, randomness and I/O come
    // from emulator/sim only, and it never reaches for the UI or for Node.
    files: ['emulator/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [
          ...nodeBuiltins.map((name) => ({ name, message: 'emulator/ must not use Node built-ins.' })),
          { name: 'react', message: 'emulator/ must not import the UI.' },
          { name: 'react-dom', message: 'emulator/ must not import the UI.' },
        ],
        patterns: [
          { group: ['**/src/*', '**/src/**'], message: 'emulator/ must not import from src/.' },
          { group: ['@xterm/*', 'react-dom/*'], message: 'emulator/ must not import the UI.' },
        ],
      }],
      'no-restricted-globals': ['error',
        { name: 'process', message: 'No Node in emulator/.' },
        { name: 'require', message: 'No Node in emulator/.' },
        { name: 'window', message: 'No DOM in emulator/.' },
        { name: 'document', message: 'No DOM in emulator/.' },
        { name: 'setTimeout', message: 'Use the simulated clock (emulator/sim).' },
        { name: 'setInterval', message: 'Use the simulated clock (emulator/sim).' },
        { name: 'performance', message: 'Use the simulated clock (emulator/sim).' },
        { name: 'Buffer', message: 'No Node in emulator/.' },
      ],
      'no-restricted-properties': ['error',
        { object: 'Math', property: 'random', message: 'Use the seeded PRNG from emulator/sim.' },
        { object: 'Date', property: 'now', message: 'Use the simulated clock (emulator/sim).' },
      ],
    },
  },
);
