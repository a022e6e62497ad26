import { createOpenApiFetchHandler } from 'trpc-to-openapi';
import { appRouter, retryAfterHeaders } from '@clusterscope/api';
import { createContext } from '$lib/server/context';
import { guardJsonRequest } from '$lib/server/json-body';
import type { RequestHandler } from './$types';

/** REST for CI: the same tRPC procedures, routed by their OpenAPI meta. */
const handler: RequestHandler = async (event) => {
  const req = await guardJsonRequest(event.request);
  if (req instanceof Response) return req;
  return createOpenApiFetchHandler({
    endpoint: '/api/v1',
    req,
    router: appRouter,
    createContext: () => createContext(event),
    responseMeta: ({ errors }) => ({ headers: retryAfterHeaders(errors) }),
  });
};

export const GET = handler;
export const POST = handler;
export const PUT = handler;
export const PATCH = handler;
export const DELETE = handler;
