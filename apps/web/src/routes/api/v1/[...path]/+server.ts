import { createOpenApiFetchHandler } from 'trpc-to-openapi';
import { appRouter, retryAfterHeaders } from '@clusterscope/api';
import { createContext } from '$lib/server/context';
import type { RequestHandler } from './$types';

/** REST for CI: the same tRPC procedures, routed by their OpenAPI meta. */
const handler: RequestHandler = (event) =>
  createOpenApiFetchHandler({
    endpoint: '/api/v1',
    req: event.request,
    router: appRouter,
    createContext: () => createContext(event),
    responseMeta: ({ errors }) => ({ headers: retryAfterHeaders(errors) }),
  });

export const GET = handler;
export const POST = handler;
export const PUT = handler;
export const PATCH = handler;
export const DELETE = handler;
