// Bundles the daemon and the CLI into single files: dist/agent.js, dist/clusterscope.js.
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));
const outdir = process.argv.includes('--outdir') ? process.argv[process.argv.indexOf('--outdir') + 1] : 'dist';

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  define: { __AGENT_VERSION__: JSON.stringify(pkg.version) },
  // ESM bundles of CJS deps need a require().
  banner: { js: "#!/usr/bin/env node\nimport { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  logLevel: 'warning',
};

await Promise.all([
  build({ ...common, entryPoints: ['src/bin/agent.ts'], outfile: `${outdir}/agent.js` }),
  build({ ...common, entryPoints: ['src/bin/clusterscope.ts'], outfile: `${outdir}/clusterscope.js` }),
]);
