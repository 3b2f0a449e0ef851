import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    // test/conformance-2026/reference: the conformance suite's reference server, kept as published
    ignores: [
      'node_modules',
      'out',
      'dist',
      'test-results',
      'renderer/dist',
      '.vite',
      'test/conformance-2026/reference',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strict,
  prettier,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      // The core must stay plain Node: only the desktop shell may import electron.
      'no-restricted-imports': [
        'error',
        { paths: [{ name: 'electron', message: 'Only electron/shell/ may import electron.' }] },
      ],
    },
  },
  {
    // Plain JavaScript entry points and fixture servers run under Node.
    files: ['**/*.mjs'],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['electron/shell/**'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    files: ['shared/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['node:*', 'electron', 'react', 'react-dom'],
              message: 'shared/ holds no Node, DOM or Electron code.',
            },
          ],
        },
      ],
    },
  },
  {
    // What `serve` runs stays off ICU's locale data: its first use maps megabytes of it into the
    // process for good (collation ~4 MB, date formats ~6 MB; docs/performance.md). The CLI's own
    // output (electron/cli/commands) and the renderer may format for the person's locale.
    files: ['electron/core/**', 'electron/headless/**', 'shared/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            'CallExpression[callee.property.name=/^(localeCompare|toLocaleString|toLocaleDateString|toLocaleTimeString|toLocaleUpperCase|toLocaleLowerCase)$/]',
          message:
            'serve must not load ICU locale data: order names with compareNames (electron/core/text-order.ts), format numbers and times by hand.',
        },
        {
          selector: "MemberExpression[object.name='Intl']",
          message:
            'serve must not load ICU locale data (docs/performance.md): no Intl in the core or shared/.',
        },
      ],
    },
  },
  {
    // The renderer: React hooks rules (and the React Compiler's checks), and browser code only —
    // it talks to the main process through shared/ui-api.ts, never by importing electron/ or Node.
    files: ['renderer/src/**/*.{ts,tsx}'],
    ...reactHooks.configs.flat['recommended-latest'],
  },
  {
    files: ['renderer/src/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['node:*', 'electron', '**/electron/**'],
              message: 'The renderer uses shared/ui-api.ts, never Node or electron/.',
            },
          ],
        },
      ],
    },
  },
);
