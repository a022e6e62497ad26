// Bundles the ingest worker (packages/services/src/ingest-worker.ts) next to the server's index.js.
import { build } from 'esbuild';

const out = process.env.WEB_BUILD_DIR ?? 'build';
await build({
  entryPoints: ['../../packages/services/src/ingest-worker.ts'],
  outfile: `${out}/ingest-worker.js`,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  sourcemap: true,
  // ESM bundles of CJS deps need a require().
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  logLevel: 'warning',
});
