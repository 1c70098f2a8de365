import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import floors from './eslint.floors.js';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'bench/results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly',
        setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly',
        clearInterval: 'readonly', setImmediate: 'readonly', TextEncoder: 'readonly',
        TextDecoder: 'readonly', fetch: 'readonly', AbortController: 'readonly',
        performance: 'readonly', __ENV: 'readonly', __VU: 'readonly', __ITER: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-empty': ['error', { allowEmptyCatch: false }],
    },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { floors },
    rules: { 'floors/import-floors': 'error', 'floors/no-import-cycle': 'error' },
  },
);
