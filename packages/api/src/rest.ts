import type { OpenApiMeta } from 'trpc-to-openapi';

type TMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * The OpenAPI meta of one router's REST-exposed procedures (all under the same `tags`):
 * `const rest = restMeta(['runs']);` then `.meta(rest('POST', '/runs', 'Create a run', 'More detail.'))`.
 */
export const restMeta =
  (tags: string[]) =>
  (method: TMethod, path: `/${string}`, summary: string, description?: string): OpenApiMeta => ({
    openapi: { method, path, tags, summary, ...(description === undefined ? {} : { description }) },
  });
