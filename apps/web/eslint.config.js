import base from '@clusterscope/config/eslint';
import svelte from 'eslint-plugin-svelte';
import ts from 'typescript-eslint';
import svelteConfig from './svelte.config.js';

/** Layering: the web app reaches the databases only through its composition root and its scripts. */
const layering = {
  files: ['src/**/*.ts', 'src/**/*.svelte'],
  ignores: ['src/lib/server/deps.ts'],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            group: ['@clusterscope/db', '@clusterscope/db/*', '@clusterscope/tsdb', '@clusterscope/tsdb/*'],
            message:
              'apps/web reaches db/tsdb only in src/lib/server/deps.ts (composition root) and scripts/.',
          },
        ],
      },
    ],
  },
};

export default ts.config(
  ...base,
  ...svelte.configs.recommended,
  ...svelte.configs.prettier,
  {
    files: ['**/*.svelte', '**/*.svelte.ts'],
    languageOptions: { parserOptions: { parser: ts.parser, extraFileExtensions: ['.svelte'], svelteConfig } },
    rules: { 'svelte/no-navigation-without-resolve': 'off' },
  },
  layering,
);
