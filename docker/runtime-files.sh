#!/bin/sh
# The web image's runtime file set, written to $1 and laid out as in the repository (the launcher finds
# prisma/migrations, the ClickHouse migrations, apps/web/build and the CLI bundle from there): pnpm deploy's
# flat node_modules (the web package's runtime dependencies), the server build, the launcher and admin CLI
# bundled for plain node, and the CI CLI served at /cli/clusterscope.mjs.
# Run from the repository root after `pnpm install`, `pnpm --filter @clusterscope/db run generate` and the
# web and agent builds. Dockerfile.web runs it, and apps/web/scripts/runtime-files.int.test.ts runs it into
# a temp dir and starts the result with only node on the PATH, so the image and its test cannot drift apart.
set -eu
out=${1:?usage: docker/runtime-files.sh <out-dir>}
for f in apps/web/build/index.js apps/agent/dist/clusterscope.js; do
  [ -f "$f" ] || { echo "runtime-files: $f is missing: build the web and agent packages first" >&2; exit 1; }
done
pnpm deploy --filter=@clusterscope/web --prod --legacy --config.node-linker=hoisted --prefer-offline \
  --reporter=silent "$out/apps/web"
# pnpm deploy copies the package directory as it is, sources included: the server build is replaced whole.
rm -rf "$out/apps/web/build" "$out/apps/web/src" "$out/apps/web/scripts"
cp -r apps/web/build "$out/apps/web/build"
(cd apps/web && node scripts/bundle-scripts.mjs --outdir "$out/apps/web/scripts/bin")
mkdir -p "$out/packages/tsdb" "$out/apps/agent/dist"
cp -r prisma "$out/prisma"
cp -r packages/tsdb/migrations "$out/packages/tsdb/"
cp apps/agent/dist/clusterscope.js "$out/apps/agent/dist/"
