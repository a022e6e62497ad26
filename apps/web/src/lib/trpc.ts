import { createTRPCClient, httpBatchLink, TRPCClientError } from '@trpc/client';
import type { AppRouter } from '@clusterscope/api';

/** Browser tRPC client for one organization (the `[org]` in the URL). */
export function trpc(org: string) {
  return createTRPCClient<AppRouter>({
    links: [httpBatchLink({ url: '/api/trpc', headers: () => ({ 'x-org': org }) })],
  });
}

export function errorMessage(err: unknown): string {
  if (err instanceof TRPCClientError) return err.message;
  return err instanceof Error ? err.message : String(err);
}
