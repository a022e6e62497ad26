import { inThreadParser } from '@clusterscope/services/ingest';
import { getServer } from '$lib/server/deps';
import { guardJsonRequest, isBulkJson, isTextOutput, readBulkJson } from '$lib/server/json-body';
import { handleOpenApi } from '$lib/server/openapi-handler';
import { postTextOutput } from '$lib/server/text-output';
import type { RequestHandler } from './$types';

/** REST for CI: the same tRPC procedures, routed by their OpenAPI meta. */
const handler: RequestHandler = async (event) => {
  // Raw tool output as text/plain (curl --data-binary @out.txt): its bytes go to runs.addOutputBytes.
  if (isTextOutput(event.request)) return postTextOutput(event);
  // A JSON body that may carry an 8 MB output is checked and parsed on the parse worker, not here.
  if (isBulkJson(event.request)) {
    const { deps } = await getServer();
    const body = await readBulkJson(event.request, deps.parser ?? inThreadParser);
    return body instanceof Response ? body : handleOpenApi(event, event.request, '/api/v1', body);
  }
  const req = await guardJsonRequest(event.request);
  if (req instanceof Response) return req;
  const res = await handleOpenApi(event, req);
  return isMarkdownReport(event.url) && res.ok ? asMarkdown(res) : res;
};

/** `GET /runs/{id}/report?format=markdown` answers the report's markdown itself, for `curl > summary.md`. */
const isMarkdownReport = (url: URL) =>
  /^\/api\/v1\/runs\/[^/]+\/report\/?$/.test(url.pathname) && url.searchParams.get('format') === 'markdown';

async function asMarkdown(res: Response): Promise<Response> {
  const { markdown } = (await res.json()) as { markdown: string };
  const headers = new Headers(res.headers);
  headers.set('content-type', 'text/markdown; charset=utf-8');
  headers.delete('content-length');
  return new Response(markdown, { status: res.status, headers });
}

export const GET = handler;
export const POST = handler;
export const PUT = handler;
export const PATCH = handler;
export const DELETE = handler;
