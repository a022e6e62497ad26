import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const alias = { $lib: fileURLToPath(new URL('./apps/web/src/lib', import.meta.url)) };
const exclude = ['**/node_modules/**', '**/dist/**', '**/build/**', '**/.svelte-kit/**'];

export default defineConfig({
  test: {
    projects: [
      {
        resolve: { alias },
        test: {
          name: 'unit',
          include: ['{apps,packages}/**/*.test.ts'],
          exclude: [...exclude, '**/*.int.test.ts'],
        },
      },
      {
        resolve: { alias },
        test: {
          name: 'int',
          include: ['{apps,packages}/**/*.int.test.ts'],
          exclude,
          // Each file is its own process: chDB allows one data directory per process.
          pool: 'forks',
          globalSetup: ['./packages/db/test/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
