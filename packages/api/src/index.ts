export { appRouter, type AppRouter } from './root';
export { createCallerFactory, retryAfterHeaders, type TContext } from './trpc';
export { getOpenApiDocument, extraPaths } from './openapi';
