import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules', 'out', 'dist', 'test-results', 'renderer/dist'] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  prettier,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      // The core must stay plain Node: only the desktop shell may import electron.
      'no-restricted-imports': ['error', { paths: [{ name: 'electron', message: 'Only electron/shell/ may import electron.' }] }],
    },
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
        { patterns: [{ group: ['node:*', 'electron', 'react', 'react-dom'], message: 'shared/ holds no Node, DOM or Electron code.' }] },
      ],
    },
  },
);
