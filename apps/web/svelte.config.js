import adapter from '@sveltejs/adapter-node';
import { vitePreprocess } from '@sveltejs/vite-plugin-svelte';

/** @type {import('@sveltejs/kit').Config} */
export default {
  preprocess: vitePreprocess(),
  kit: {
    // WEB_BUILD_DIR lets parallel checkouts/tests build without clobbering each other.
    adapter: adapter({ precompress: true, out: process.env.WEB_BUILD_DIR ?? 'build' }),
    // CSRF origin check: the same rule as SvelteKit's, applied in hooks.server.ts (src/lib/server/csrf.ts) so
    // that CI may POST raw text/plain tool output with a bearer token; form posts must come from ORIGIN.
    csrf: { trustedOrigins: ['*'] },
    // Scripts run only with this response's nonce; Svelte and ECharts set inline styles, so styles may be inline.
    csp: {
      mode: 'nonce',
      directives: {
        'default-src': ['self'],
        'script-src': ['self'],
        'style-src': ['self', 'unsafe-inline'],
        'img-src': ['self', 'data:', 'blob:'],
        'font-src': ['self', 'data:'],
        'connect-src': ['self'],
        'worker-src': ['self'],
        'manifest-src': ['self'],
        'object-src': ['none'],
        'base-uri': ['self'],
        'form-action': ['self'],
        'frame-ancestors': ['none'],
      },
    },
    version: { pollInterval: 0 },
    // src/service-worker.ts (alert pushes) is registered only when someone enables notifications.
    serviceWorker: { register: false },
  },
};
