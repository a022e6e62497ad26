export { appRouter, type AppRouter } from './root';
export { createCallerFactory, type TContext } from './trpc';
export { getOpenApiDocument, extraPaths } from './openapi';
