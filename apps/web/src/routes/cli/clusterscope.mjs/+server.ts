import { readFile, stat } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { getEnv } from '$lib/server/env';
import type { RequestHandler } from './$types';

type TBundle = { body: Buffer; version: string; etag: string; mtimeMs: number };
let cached: TBundle | undefined;

/** The bundle as built, re-read when the file changes (a redeploy next to a running server). */
async function loadBundle(file: string): Promise<TBundle> {
  const { mtimeMs } = await stat(file);
  if (cached?.mtimeMs === mtimeMs) return cached;
  const body = await readFile(file);
  const head = body.subarray(0, 512).toString('utf8');
  const version = /^\/\/ clusterscope (\S+)$/m.exec(head)?.[1] ?? 'unknown';
  const etag = `"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"`;
  cached = { body, version, etag, mtimeMs };
  return cached;
}

/** The CI CLI as one file: `curl -fsSL "$CLUSTERSCOPE_URL/cli/clusterscope.mjs" -o clusterscope.mjs`. */
export const GET: RequestHandler = async ({ request }) => {
  const file = getEnv().CLI_PATH;
  let b: TBundle;
  try {
    b = await loadBundle(file);
  } catch {
    return new Response(
      `the CLI bundle is not built on this server (CLI_PATH=${file}): run \`pnpm --filter @clusterscope/agent build\`\n`,
      { status: 503, headers: { 'content-type': 'text/plain; charset=utf-8', 'retry-after': '60' } },
    );
  }
  const headers = {
    'content-type': 'text/javascript; charset=utf-8',
    'x-clusterscope-cli-version': b.version,
    etag: b.etag,
    'cache-control': 'public, max-age=300',
    'content-disposition': 'inline; filename="clusterscope.mjs"',
  };
  if (request.headers.get('if-none-match') === b.etag) return new Response(null, { status: 304, headers });
  return new Response(new Uint8Array(b.body), { headers });
};
