import base from '@clusterscope/config/eslint';
import svelte from 'eslint-plugin-svelte';
import ts from 'typescript-eslint';
import svelteConfig from './svelte.config.js';

export default ts.config(...base, ...svelte.configs.recommended, ...svelte.configs.prettier, {
  files: ['**/*.svelte', '**/*.svelte.ts'],
  languageOptions: { parserOptions: { parser: ts.parser, extraFileExtensions: ['.svelte'], svelteConfig } },
  rules: { 'svelte/no-navigation-without-resolve': 'off' },
});
