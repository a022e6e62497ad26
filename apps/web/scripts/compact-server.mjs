// Rewrites the server build's chunks minified and ASCII-only, names kept (as build-worker.mjs does for the
// threads). V8 keeps each module's source for the process's life, and one non-ASCII character makes it keep a
// whole chunk two bytes per character: the server's 2.7 MB chunk was a 5.4 MB string. Source maps are chained.
import { readdirSync, readFileSync } from 'node:fs';
import { build } from 'esbuild';

const dir = `${process.env.WEB_BUILD_DIR ?? 'build'}/server`;
const entryPoints = readdirSync(dir, { recursive: true })
  .map(String)
  .filter((f) => f.endsWith('.js'))
  .map((f) => `${dir}/${f}`);

await build({
  entryPoints,
  outdir: dir,
  outbase: dir,
  allowOverwrite: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  sourcemap: true,
  minify: true,
  keepNames: true,
  charset: 'ascii',
  logLevel: 'warning',
});

// esbuild leaves non-ASCII in a regular expression as it is: name the chunk that V8 will keep two-byte.
for (const f of entryPoints) {
  const i = readFileSync(f, 'latin1').search(/[\x80-\xff]/);
  if (i >= 0)
    console.warn(`compact-server: ${f} is not ASCII-only (offset ${i}); V8 keeps it two bytes per character`);
}
