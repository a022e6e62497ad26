import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
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
  {
    // Another workspace package is reached by its name and its exports (`@clusterscope/db/testing`), never by a
    // relative path into its folders: the exports are the package's contract, its folders are not.
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js', '.svelte', '.json'] })],
    },
    rules: { 'import-x/no-relative-packages': 'error' },
  },
);

const TESTS = ['**/*.test.ts', '**/test/**', '**/test-*.ts', '**/testing.ts', 'scripts/**'];

/**
 * The layering rule of one package (DESIGN.md, "Layering, enforced"): its source may import only the workspace
 * packages in `allow`; its tests and scripts may also import those in `tests` (to set up real databases).
 */
export function layer(pkg, allow, tests = []) {
  const rule = (names, extra = []) => [
    'error',
    {
      patterns: [
        ...extra,
        {
          group: ['@clusterscope/*', ...names.map((n) => `!@clusterscope/${n}`), '!@clusterscope/config'],
          message: `${pkg} reaches only ${names.length ? names.map((n) => `@clusterscope/${n}`).join(', ') : 'no other workspace package'} here (DESIGN.md, layering).`,
        },
      ],
    },
  ];
  return [
    { files: ['**/*.ts'], rules: { 'no-restricted-imports': rule(allow, [NO_TESTING]) } },
    { files: TESTS, rules: { 'no-restricted-imports': rule([...allow, ...tests]) } },
  ];
}

/** Testing entry points (`@clusterscope/db/testing`) hold fixtures and test databases: tests only, never shipped. */
const NO_TESTING = {
  group: ['@clusterscope/*/testing', '@clusterscope/*/testing/*'],
  message: 'a testing entry point is for tests and scripts only (DESIGN.md, layering).',
};

/**
 * The e2e suite drives the built app and agent from outside: it reaches other workspace packages only through
 * their testing entry points and the few fixtures entries they export, never through their source.
 */
export const e2eBoundary = [
  {
    files: ['**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^@clusterscope/(?!config$|[^/]+/testing$|web/clickhouse$)',
              message:
                'e2e reaches a workspace package only through its testing entry point (DESIGN.md, layering).',
            },
          ],
        },
      ],
    },
  },
];
