// Bundles the daemon (job loop included) and the CLI into single files: dist/agent.js, dist/clusterscope.js.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));
const outdir = process.argv.includes('--outdir')
  ? process.argv[process.argv.indexOf('--outdir') + 1]
  : 'dist';

/** zod re-exports ~40 locales (≈260 KB) through `z.locales`; only English (imported directly) is used. */
const dropZodLocales = {
  name: 'drop-zod-locales',
  setup(b) {
    b.onResolve({ filter: /locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]/.test(args.importer) ? { path: 'zod-locales', namespace: 'stub' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'stub' }, () => ({ contents: 'export {};', loader: 'js' }));
  },
};

/**
 * The daemon needs only constants from @clusterscope/schema (LIVENESS, INGEST_MAX_SAMPLES…); loading
 * the package would construct every zod schema (≈4 MB RSS). Evaluate the schema package at build time
 * and give the daemon a module with its plain-data exports only. Importing a schema from the daemon
 * then fails the build ("No matching export"), loudly. The job loop (src/jobs, and the bench parsers it
 * uses) gets the real package: it is reached only through a dynamic import, which esbuild keeps in the
 * same file and evaluates on first use, so collector-only agents never construct those schemas.
 */
async function schemaConstantsPlugin() {
  const dir = mkdtempSync(join(tmpdir(), 'cs-schema-'));
  const out = join(dir, 'schema.mjs');
  await build({
    entryPoints: ['@clusterscope/schema'],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: out,
    logLevel: 'warning',
  });
  const mod = await import(pathToFileURL(out).href);
  rmSync(dir, { recursive: true, force: true });
  const isData = (v) =>
    v === null || ['string', 'number', 'boolean'].includes(typeof v) || (Array.isArray(v) && v.every(isData));
  const contents = Object.entries(mod)
    .filter(([, v]) => isData(v))
    .map(([k, v]) => `export const ${k} = ${JSON.stringify(v)};`)
    .join('\n');
  return {
    name: 'schema-constants',
    setup(b) {
      b.onResolve({ filter: /^@clusterscope\/schema$/ }, (args) =>
        /[\\/](src[\\/]jobs|packages[\\/]bench|bench[\\/]src)[\\/]/.test(args.importer)
          ? undefined
          : { path: 'schema-constants', namespace: 'schema-constants' },
      );
      b.onLoad({ filter: /.*/, namespace: 'schema-constants' }, () => ({ contents, loader: 'js' }));
    },
  };
}

const common = {
  plugins: [dropZodLocales],
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  define: { __AGENT_VERSION__: JSON.stringify(pkg.version) },
  // ESM bundles of CJS deps need a require().
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
  },
  logLevel: 'warning',
};

await Promise.all([
  build({
    ...common,
    plugins: [...common.plugins, await schemaConstantsPlugin()],
    entryPoints: ['src/bin/agent.ts'],
    outfile: `${outdir}/agent.js`,
  }),
  // The server serves this file at /cli/clusterscope.mjs and reads its version from the second line.
  build({
    ...common,
    banner: { js: common.banner.js.replace('\n', `\n// clusterscope ${pkg.version}\n`) },
    entryPoints: ['src/bin/clusterscope.ts'],
    outfile: `${outdir}/clusterscope.js`,
  }),
]);
