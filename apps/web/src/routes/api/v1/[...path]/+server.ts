import { guardJsonRequest, maxBodyBytes } from '$lib/server/json-body';
import { handleOpenApi } from '$lib/server/openapi-handler';
import { textOutputAsJson } from '$lib/server/text-output';
import type { RequestHandler } from './$types';

/** REST for CI: the same tRPC procedures, routed by their OpenAPI meta. */
const handler: RequestHandler = async (event) => {
  // Raw tool output as text/plain (curl --data-binary @out.txt) becomes the JSON body of runs.addOutput.
  const text = await textOutputAsJson(event.request, maxBodyBytes(event.url.pathname));
  if (text instanceof Response) return text;
  const req = await guardJsonRequest(text);
  if (req instanceof Response) return req;
  return handleOpenApi(event, req);
};

export const GET = handler;
export const POST = handler;
export const PUT = handler;
export const PATCH = handler;
export const DELETE = handler;
