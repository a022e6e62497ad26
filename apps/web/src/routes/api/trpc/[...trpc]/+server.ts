import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { appRouter, retryAfterHeaders } from '@clusterscope/api';
import { createContext } from '$lib/server/context';
import { guardJsonRequest } from '$lib/server/json-body';
import type { RequestHandler } from './$types';

const handler: RequestHandler = async (event) => {
  const req = await guardJsonRequest(event.request);
  if (req instanceof Response) return req;
  return fetchRequestHandler({
    endpoint: '/api/trpc',
    req,
    router: appRouter,
    createContext: () => createContext(event),
    // A 429 (e.g. "Send test" too often) says when to come back, as over REST.
    responseMeta: ({ errors }) => ({ headers: retryAfterHeaders(errors) }),
  });
};

export const GET = handler;
export const POST = handler;
