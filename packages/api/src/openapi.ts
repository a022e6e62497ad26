import { generateOpenApiDocument } from 'trpc-to-openapi';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { appRouter } from './root';

let cached: ReturnType<typeof generateOpenApiDocument> | undefined;

/** Extra non-tRPC routes (ingest) registered by the web app. */
export const extraPaths: ZodOpenApiPathsObject = {};

export function getOpenApiDocument(baseUrl: string) {
  cached ??= generateOpenApiDocument(appRouter, {
    title: 'Clusterscope API',
    description:
      'REST API for CI and agents. Authenticate with `Authorization: Bearer <token>` (create tokens in Settings → API tokens or with `npm run admin -- token create`).',
    version: '1.0.0',
    baseUrl,
    securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
    paths: extraPaths,
  });
  return cached;
}
