// After `vite build`: compacts the server build's chunks, then bundles the ingest and parse workers
// (packages/services/src/ingest/{ingest,parse}-worker.ts) and the alerting thread (packages/services/src/alerting/thread-worker.ts)
// next to the server's index.js.
import { readdirSync, readFileSync } from 'node:fs';
import { build } from 'esbuild';
import { prismaWasmEsbuild } from './prisma-wasm.mjs';

const out = process.env.WEB_BUILD_DIR ?? 'build';

/**
 * V8 keeps each module's source for the process's life: minified and ASCII-only it is stored one byte per
 * character. One non-ASCII comment made the alerting bundle's 7 MB source a 14 MB two-byte string, and one µ in a
 * regex the server's 2.7 MB chunk a 5.4 MB one. Names are kept (stack traces).
 */
const compact = {
  platform: 'node',
  target: 'node20',
  format: 'esm',
  sourcemap: true,
  minify: true,
  keepNames: true,
  charset: 'ascii',
  logLevel: 'warning',
};

// The server build's chunks, rewritten in place (their source maps are chained).
const server = `${out}/server`;
const chunks = readdirSync(server, { recursive: true })
  .map(String)
  .filter((f) => f.endsWith('.js'))
  .map((f) => `${server}/${f}`);
await build({ ...compact, entryPoints: chunks, outdir: server, outbase: server, allowOverwrite: true });
// esbuild leaves non-ASCII in a regular expression as it is: name the chunk V8 will keep two-byte.
for (const f of chunks) {
  const i = readFileSync(f, 'latin1').search(/[\x80-\xff]/);
  if (i >= 0)
    console.warn(`post-build: ${f} is not ASCII-only (offset ${i}); V8 keeps it two bytes per character`);
}

for (const [entry, file] of [
  ['../../packages/services/src/ingest/ingest-worker.ts', 'ingest-worker.js'],
  ['../../packages/services/src/ingest/parse-worker.ts', 'parse-worker.js'],
  ['../../packages/services/src/alerting/thread-worker.ts', 'alert-worker.js'],
]) {
  await build({
    ...compact,
    entryPoints: [entry],
    outfile: `${out}/${file}`,
    bundle: true,
    // ESM bundles of CJS deps need a require().
    banner: {
      js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
    },
    // The threads never open chDB (the web thread does); its loader would pull in the TypeScript compiler.
    external: ['chdb', 'chdb/*'],
    // Prisma's query compiler read when needed (prisma-wasm.mjs).
    plugins: [prismaWasmEsbuild],
  });
}
