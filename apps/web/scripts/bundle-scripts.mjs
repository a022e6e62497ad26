// Bundles the launcher and the admin CLI into plain Node entries (scripts/bin/{launch,admin}.mjs) for the
// runtime image, which has no pnpm and no tsx: workspace packages are bundled in, npm packages stay imports
// resolved from apps/web/node_modules (pnpm deploy's output). The output stays four levels below the repo
// root (apps/web/scripts/bin), as the sources are: they find prisma/migrations and apps/web/build from there.
import { build } from 'esbuild';

const outdir = process.argv.includes('--outdir')
  ? process.argv[process.argv.indexOf('--outdir') + 1]
  : 'scripts/bin';

const externalNpm = {
  name: 'external-npm',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@clusterscope/') || args.path.startsWith('node:')
        ? undefined
        : { external: true },
    );
  },
};

await build({
  entryPoints: { launch: 'scripts/launch.ts', admin: 'scripts/admin.ts' },
  outdir,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  plugins: [externalNpm],
  banner: {
    js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
  },
  logLevel: 'warning',
});
