import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { AppError } from '@clusterscope/services/core';

/**
 * The HTTP status of an expected error (a domain AppError or a tRPC error), from tRPC's own code table;
 * null for anything unexpected, which handleError logs and answers with an id only.
 */
export function statusOf(err: unknown): number | null {
  const code = err instanceof TRPCError || err instanceof AppError ? err.code : null;
  if (!code || code === 'INTERNAL_SERVER_ERROR') return null;
  return getHTTPStatusCodeFromError(new TRPCError({ code }));
}
