import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import ts from 'typescript-eslint';

/** Shared flat config: TypeScript + Node/browser globals. Svelte apps extend it. */
export default ts.config(
  {
    ignores: [
      '**/dist/**',
      '**/build/**',
      '**/build-*/**',
      '**/test-results/**',
      '**/playwright-report/**',
      '**/.svelte-kit/**',
      '**/generated/**',
      '**/node_modules/**',
    ],
  },
  js.configs.recommended,
  ...ts.configs.recommended,
  prettier,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
);
