// Bundles the launcher and the admin CLI into plain Node entries (scripts/bin/{launch,admin}.mjs) for the
// runtime image, which has no pnpm and no tsx: the web package's dependencies stay imports resolved from
// apps/web/node_modules (pnpm deploy's output), everything else (workspace packages included) is bundled in.
// The output stays four levels below the repo root (apps/web/scripts/bin), as the sources are: they find prisma/migrations and apps/web/build from there.
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';

/** What `pnpm deploy --prod` installs: the web package's own dependencies (native and server packages). */
const installed = new Set(
  Object.keys(JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).dependencies),
);
const packageOf = (p) =>
  p
    .split('/')
    .slice(0, p.startsWith('@') ? 2 : 1)
    .join('/');

const outdir = process.argv.includes('--outdir')
  ? process.argv[process.argv.indexOf('--outdir') + 1]
  : 'scripts/bin';

const externalNpm = {
  name: 'external-npm',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) =>
      installed.has(packageOf(args.path)) ? { external: true } : undefined,
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
