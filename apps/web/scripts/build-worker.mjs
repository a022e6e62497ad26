// Bundles the ingest worker (packages/services/src/ingest-worker.ts) and the alerting
// thread (packages/services/src/alerting/thread-worker.ts) next to the server's index.js.
import { build } from 'esbuild';

const out = process.env.WEB_BUILD_DIR ?? 'build';
for (const [entry, file] of [
  ['../../packages/services/src/ingest-worker.ts', 'ingest-worker.js'],
  ['../../packages/services/src/alerting/thread-worker.ts', 'alert-worker.js'],
]) {
  await build({
    entryPoints: [entry],
    outfile: `${out}/${file}`,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    sourcemap: true,
    // ESM bundles of CJS deps need a require().
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    // The threads never open chDB (the web thread does); its loader would pull in the TypeScript compiler.
    external: ['chdb', 'chdb/*'],
    logLevel: 'warning',
  });
}
