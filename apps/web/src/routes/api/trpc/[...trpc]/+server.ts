import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { appRouter } from '@clusterscope/api';
import { createContext } from '$lib/server/context';
import type { RequestHandler } from './$types';

const handler: RequestHandler = (event) =>
  fetchRequestHandler({
    endpoint: '/api/trpc',
    req: event.request,
    router: appRouter,
    createContext: () => createContext(event),
  });

export const GET = handler;
export const POST = handler;
