import type { RequestEvent } from '@sveltejs/kit';
import { TRPCError } from '@trpc/server';
import { createOpenApiNodeHttpHandler } from 'trpc-to-openapi';
import { appRouter, retryAfterHeaders } from '@clusterscope/api';
import { createContext } from './context';
import type { TParsedBody } from './json-body';

/**
 * REST for CI: the tRPC procedures routed by their OpenAPI meta, through ONE handler built at start.
 * trpc-to-openapi's fetch adapter builds a new handler per request, and that rebuilds the route table
 * and (outside NODE_ENV=production) the whole OpenAPI document from the zod schemas every time.
 */
const events = new WeakMap<Request, RequestEvent>();

let handler: ReturnType<typeof createOpenApiNodeHttpHandler> | undefined;
const getHandler = () =>
  (handler ??= createOpenApiNodeHttpHandler({
    router: appRouter,
    createContext: ({ req }: { req: Request }) => {
      const event = events.get(req);
      if (!event) throw new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: 'request without event' });
      return createContext(event);
    },
    responseMeta: ({ errors }: { errors: TRPCError[] }) => ({ headers: retryAfterHeaders(errors) }),
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the node adapter's types are for IncomingMessage
  } as any));

/**
 * The request as the node-http core reads it: url without the endpoint, JSON body parsed once (or `parsed`,
 * the body parsed already).
 */
async function toCoreRequest(req: Request, endpoint: string, parsed?: TParsedBody): Promise<Request> {
  const url = new URL(req.url.replace(endpoint, '')).toString();
  let body: TParsedBody;
  const type = req.headers.get('content-type') ?? '';
  try {
    if (parsed) body = parsed;
    else if (type.includes('application/json')) body = { ok: true, data: JSON.parse(await req.text()) };
    else if (type.includes('application/x-www-form-urlencoded')) {
      const params = new URLSearchParams(await req.text());
      const data: Record<string, string[]> = {};
      for (const k of params.keys()) data[k] = params.getAll(k);
      body = { ok: true, data };
    } else body = { ok: true, data: req.body };
  } catch (cause) {
    body = { ok: false, cause };
  }
  return new Proxy(req, {
    get(target, prop) {
      if (prop === 'url') return url;
      if (prop === 'body') {
        if (!body.ok)
          throw new TRPCError({
            code: 'PARSE_ERROR',
            message: 'Failed to parse request body',
            cause: body.cause,
          });
        return body.data;
      }
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

/**
 * Answers one REST request (`req` may differ from `event.request`, e.g. a replayable copy), its body taken
 * from `parsed` when given.
 */
export async function handleOpenApi(
  event: RequestEvent,
  req: Request,
  endpoint = '/api/v1',
  parsed?: TParsedBody,
): Promise<Response> {
  const core = await toCoreRequest(req, endpoint, parsed);
  events.set(core, event);
  const headers = new Headers();
  return new Promise<Response>((resolve, reject) => {
    let status = 200;
    const res = {
      setHeader(key: string, value: string | string[]) {
        if (typeof value === 'string') headers.set(key, value);
        else for (const v of value) headers.append(key, v);
      },
      get statusCode() {
        return status;
      },
      set statusCode(code: number) {
        status = code;
      },
      end(body?: string) {
        resolve(new Response(body, { headers, status }));
      },
    };
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- see getHandler
    (getHandler() as any)(core, res).catch(reject);
  });
}
