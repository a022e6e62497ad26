import { generateOpenApiDocument } from 'trpc-to-openapi';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { TOOLS, ZIngestAccepted, ZIngestBatch, ZWebhookPayload } from '@clusterscope/schema';
import { appRouter } from './root';

let cached: ReturnType<typeof generateOpenApiDocument> | undefined;

const ZApiError = z.object({
  error: z.string(),
  issues: z.array(z.string()).optional(),
  dependency: z.string().optional(),
});
const errorBody = (description: string) => ({
  description,
  content: { 'application/json': { schema: ZApiError } },
});

/** Extra non-tRPC routes (ingest) registered by the web app. */
export const extraPaths: ZodOpenApiPathsObject = {
  '/ingest': {
    post: {
      tags: ['ingest'],
      summary: 'Ingest a batch of agent samples',
      description:
        "JSON body (optionally `Content-Encoding: gzip`), token with the `ingest` scope. The org is the token's; the cluster is the token's bound cluster, else `cluster` (id or name). Answers 202 after ClickHouse confirmed the insert; a retried `batchId` is stored once (`duplicate: true`).",
      security: [{ bearer: [] }],
      requestBody: { required: true, content: { 'application/json': { schema: ZIngestBatch } } },
      responses: {
        '202': {
          description: 'Stored (or already stored: duplicate)',
          content: { 'application/json': { schema: ZIngestAccepted } },
        },
        '400': errorBody('Invalid JSON or samples; `issues` lists `path: message` (first 100)'),
        '401': errorBody('Missing, unknown, expired or revoked token'),
        '403': errorBody("Token lacks the 'ingest' scope, or is bound to another cluster"),
        '404': errorBody('Unknown cluster'),
        '413': errorBody('Body above INGEST_MAX_BYTES (compressed or decompressed)'),
        '415': errorBody('Unsupported Content-Encoding'),
        '422': errorBody('No cluster given and the token is not bound to one'),
        '429': errorBody('Rate limit per token (INGEST_RATE_PER_S); see Retry-After'),
        '503': errorBody("ClickHouse unavailable (`dependency: 'clickhouse'`): keep the batch and retry"),
      },
    },
  },
};

type TDoc = ReturnType<typeof generateOpenApiDocument>;

/** The output route also takes the raw output as text/plain (the web app wraps it; trpc-to-openapi knows only JSON). */
function addTextOutput(doc: TDoc): TDoc {
  const op = doc.paths?.['/runs/{id}/output']?.post;
  const body = op?.requestBody;
  if (!op || !body || !('content' in body)) return doc;
  body.content['text/plain'] = {
    schema: {
      type: 'string',
      description: 'The raw output of the tool, as `curl --data-binary @out.txt` sends it.',
    },
  };
  op.parameters = [
    ...(op.parameters ?? []),
    {
      name: 'tool',
      in: 'query',
      required: false,
      description: 'With a text/plain body: the tool that wrote the output (detected when omitted).',
      schema: { type: 'string', enum: [...TOOLS] },
    },
  ];
  op.description = `${op.description ?? ''} Send the output as JSON \`{output, tool?}\`, or as the raw \`text/plain\` body (\`curl -H 'content-type: text/plain' --data-binary @out.txt\`) with \`?tool=\` optional.`;
  return doc;
}

/** Outgoing alert notifications to webhook channels (OpenAPI 3.1 `webhooks`). */
const webhooks = {
  alertNotification: {
    post: {
      tags: ['alerting'],
      summary: 'Alert notification sent to a webhook channel (Alertmanager webhook v4 shape)',
      description:
        'Header `X-Clusterscope-Signature: sha256=<hex>` = HMAC-SHA256 of the raw body with the channel secret. Answer 2xx; anything else is retried with exponential backoff.',
      requestBody: {
        required: true,
        content: { 'application/json': { schema: z.toJSONSchema(ZWebhookPayload, { io: 'input' }) } },
      },
      responses: { '200': { description: 'Received' } },
    },
  },
};

export function getOpenApiDocument(baseUrl: string) {
  cached ??= withWebhooks(
    addTextOutput(
      generateOpenApiDocument(appRouter, {
        title: 'Clusterscope API',
        description:
          'REST API for CI and agents. Authenticate with `Authorization: Bearer <token>` (create tokens in Settings → API tokens or with `npm run admin -- token create`).',
        version: '1.0.0',
        baseUrl,
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
        paths: extraPaths,
      }),
    ),
  );
  return cached;
}

function withWebhooks<T extends object>(doc: T): T {
  return { ...doc, webhooks: { ...(doc as { webhooks?: object }).webhooks, ...webhooks } };
}
