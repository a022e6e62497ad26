import { randomUUID } from 'node:crypto';
import { initTRPC, TRPCError } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { ZodError } from 'zod';
import { AppError, logOf, type TDeps } from '@clusterscope/services/core';
import {
  authenticateToken,
  listMyOrgs,
  toUserCaller,
  type TCaller,
  type TPermission,
  assertCan,
} from '@clusterscope/services/tenancy';

/** Per-request context, built by the web app for both /api/trpc and /api/v1. */
export interface TContext {
  deps: TDeps;
  /** Signed-in user from the session cookie, if any. */
  userId: string | null;
  /** Raw bearer token, if any. */
  bearer: string | null;
  /** Org slug the browser is looking at (`x-org` header); tokens carry their own org. */
  orgSlug: string | null;
  /** Extra handles the web runtime provides (live fan-out etc.). */
  runtime?: Record<string, unknown>;
  /** What was resolved earlier in the same request (caller, the user's orgs): server loads share one. */
  memo?: Map<string, Promise<unknown>>;
}

export function toTRPCError(err: unknown): TRPCError {
  if (err instanceof TRPCError) return err;
  if (err instanceof AppError) return new TRPCError({ code: err.code, message: err.message, cause: err });
  return new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: 'internal error', cause: err });
}

const t = initTRPC
  .context<TContext>()
  .meta<OpenApiMeta>()
  .create({
    // An unexpected error is logged under an id; the client (tRPC and REST alike) gets only that id.
    errorFormatter({ shape, error, path, ctx }) {
      const cause = error.cause;
      if (error.code === 'INTERNAL_SERVER_ERROR') {
        const id = randomUUID();
        const err = cause ?? error;
        logOf(ctx?.deps ?? {}).error(
          { id, path, err: err instanceof Error ? (err.stack ?? err.message) : String(err) },
          'procedure failed',
        );
        return {
          message: 'internal error',
          code: shape.code,
          id,
          data: { code: shape.data.code, httpStatus: shape.data.httpStatus, path, id },
        };
      }
      return {
        ...shape,
        data: {
          ...shape.data,
          stack: undefined,
          issues:
            cause instanceof ZodError || cause?.name === 'ZodError' ? (cause as ZodError).issues : undefined,
        },
      };
    },
  });

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/** Maps domain errors (AppError) to tRPC codes. */
const errors = t.middleware(async ({ next }) => {
  const res = await next();
  if (res.ok) return res;
  const cause = res.error.cause;
  if (cause instanceof AppError) return { ...res, error: toTRPCError(cause) };
  // Unexpected errors are logged (with an id) by errorFormatter.
  return res;
});

/** Path of the first string (value or key) holding a NUL character, which no store accepts as text. */
export function nulPath(v: unknown, path: (string | number)[] = [], depth = 0): (string | number)[] | null {
  if (typeof v === 'string') return v.includes('\u0000') ? path : null;
  // Raw bytes are not text yet: whoever decodes them checks (decodeOutput on the parse worker).
  if (v === null || typeof v !== 'object' || ArrayBuffer.isView(v) || depth > 64) return null;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const p = nulPath(v[i], [...path, i], depth + 1);
      if (p) return p;
    }
    return null;
  }
  for (const [k, x] of Object.entries(v)) {
    if (k.includes('\u0000')) return [...path, k];
    const p = nulPath(x, [...path, k], depth + 1);
    if (p) return p;
  }
  return null;
}

/** Refuses NUL characters anywhere in the input with a 400 naming the field, for every procedure at once. */
const noNul = t.middleware(async ({ getRawInput, next }) => {
  const path = nulPath(await getRawInput());
  if (path) {
    const message = 'may not contain a NUL character (\\u0000)';
    throw new TRPCError({
      code: 'BAD_REQUEST',
      message: `${path.map((k) => String(k).replaceAll('\u0000', '\\0')).join('.') || 'input'}: ${message}`,
      // Shaped as input validation (name + issues) so both adapters answer it like a schema error.
      cause: Object.assign(new Error(message), {
        name: 'ZodError',
        issues: [{ code: 'custom', path, message }],
      }),
    });
  }
  return next();
});

export const publicProcedure = t.procedure.use(errors).use(noNul);

/** Signed-in user (session), no org needed. */
export const userProcedure = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.userId) throw new TRPCError({ code: 'UNAUTHORIZED', message: 'sign in required' });
  return next({ ctx: { ...ctx, userId: ctx.userId } });
});

/** `f()` once per request and key (no memo: every call). */
function once<T>(ctx: TContext, key: string, f: () => Promise<T>): Promise<T> {
  const hit = ctx.memo?.get(key) as Promise<T> | undefined;
  if (hit) return hit;
  const p = f();
  ctx.memo?.set(key, p);
  return p;
}

/** The signed-in user's organizations with their role (the org switcher and the caller share one read). */
export const myOrgs = (ctx: TContext, userId: string) =>
  once(ctx, `orgs:${userId}`, () => listMyOrgs(ctx.deps, userId));

async function resolveCaller(ctx: TContext): Promise<TCaller> {
  try {
    if (ctx.bearer) return await authenticateToken(ctx.deps, ctx.bearer);
    if (!ctx.userId) throw new AppError('UNAUTHORIZED', 'sign in or send Authorization: Bearer <token>');
    if (!ctx.orgSlug) throw new AppError('BAD_REQUEST', 'missing x-org header (organization slug)');
    return toUserCaller(ctx.userId, ctx.orgSlug, await myOrgs(ctx, ctx.userId));
  } catch (err) {
    throw toTRPCError(err);
  }
}

/** Every tenant procedure: caller resolved to exactly one organization. */
export const orgProcedure = publicProcedure.use(async ({ ctx, next }) => {
  const caller = ctx.bearer
    ? await resolveCaller(ctx)
    : await once(ctx, `caller:${ctx.userId}@${ctx.orgSlug}`, () => resolveCaller(ctx));
  return next({ ctx: { ...ctx, caller } });
});

/** Org procedure requiring a permission (role for users, scope for tokens). */
export const withPermission = (permission: TPermission) =>
  orgProcedure.use(({ ctx, next }) => {
    try {
      assertCan(ctx.caller, permission);
    } catch (err) {
      throw toTRPCError(err);
    }
    return next();
  });

/** Agent-only procedure: the caller must be an agent credential (an API token bound to one agent). */
export const agentProcedure = orgProcedure.use(({ ctx, next }) => {
  const c = ctx.caller;
  if (c.kind !== 'token' || !c.agentId)
    throw new TRPCError({
      code: 'FORBIDDEN',
      message: 'this endpoint needs an agent credential (Settings → Agents → Add agent)',
    });
  return next({ ctx: { ...ctx, caller: { ...c, agentId: c.agentId } } });
});

/** `Retry-After` for 429s whose AppError carries `retryAfterS` (REST responseMeta helper). */
export function retryAfterHeaders(errors: readonly TRPCError[]): Record<string, string> | undefined {
  for (const e of errors) {
    const s = e.cause instanceof AppError ? e.cause.details?.retryAfterS : undefined;
    if (e.code === 'TOO_MANY_REQUESTS' && typeof s === 'number') return { 'retry-after': String(s) };
  }
  return undefined;
}

type TSvcOpts<C, I> = { ctx: { deps: TDeps; caller: C }; input: I };

/**
 * The resolver of a thin procedure: the service `fn` called with the request's deps and caller, and its
 * input or, with `key`, the input's `key` field.
 */
export function svc<C, I, O>(fn: (deps: TDeps, caller: C, input: I) => O): (o: TSvcOpts<C, I>) => O;
export function svc<C, K extends string, V, O>(
  fn: (deps: TDeps, caller: C, value: V) => O,
  key: K,
): (o: TSvcOpts<C, Record<K, V>>) => O;
export function svc<C, O>(fn: (deps: TDeps, caller: C, input: unknown) => O, key?: string) {
  return ({ ctx, input }: TSvcOpts<C, Record<string, unknown>>) =>
    fn(ctx.deps, ctx.caller, key === undefined ? input : input[key]);
}
