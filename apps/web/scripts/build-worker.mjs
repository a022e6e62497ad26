// Bundles the ingest worker (packages/services/src/ingest-worker.ts) and the alerting
// thread (packages/services/src/alerting/thread-worker.ts) next to the server's index.js.
import { build } from 'esbuild';
import { prismaWasmEsbuild } from './prisma-wasm.mjs';

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
    // V8 keeps each module's source: minified and ASCII-only it is stored one byte per character (one
    // non-ASCII comment made the alerting bundle's 7 MB source a 14 MB two-byte string). Names are kept.
    minify: true,
    keepNames: true,
    charset: 'ascii',
    // ESM bundles of CJS deps need a require().
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    // The threads never open chDB (the web thread does); its loader would pull in the TypeScript compiler.
    external: ['chdb', 'chdb/*'],
    // Prisma's query compiler read when needed (prisma-wasm.mjs).
    plugins: [prismaWasmEsbuild],
    logLevel: 'warning',
  });
}
