import adapter from '@sveltejs/adapter-node';
import { vitePreprocess } from '@sveltejs/vite-plugin-svelte';

/** @type {import('@sveltejs/kit').Config} */
export default {
  preprocess: vitePreprocess(),
  kit: {
    // WEB_BUILD_DIR lets parallel checkouts/tests build without clobbering each other.
    adapter: adapter({ precompress: true, out: process.env.WEB_BUILD_DIR ?? 'build' }),
    csrf: { trustedOrigins: ['*'] },
    version: { pollInterval: 0 },
  },
};
