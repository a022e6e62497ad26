/**
 * A few alerting procedures over plain fetch, for the on-call page: the tRPC client would cost that page's
 * 60 KB JS budget several KB for three calls. Same endpoint and session cookie as `$lib/trpc`.
 */
export class RpcError extends Error {}

async function call<T>(org: string, path: string, input: unknown, method: 'GET' | 'POST'): Promise<T> {
  const body = JSON.stringify(input ?? {});
  const url = method === 'GET' ? `/api/trpc/${path}?input=${encodeURIComponent(body)}` : `/api/trpc/${path}`;
  const res = await fetch(url, {
    method,
    credentials: 'same-origin',
    headers: { 'x-org': org, ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) },
    body: method === 'POST' ? body : undefined,
  });
  const json = (await res.json().catch(() => null)) as {
    result?: { data?: T };
    error?: { message?: string };
  } | null;
  if (!res.ok || !json?.result) throw new RpcError(json?.error?.message ?? `request failed (${res.status})`);
  return json.result.data as T;
}

export const query = <T>(org: string, path: string, input?: unknown) => call<T>(org, path, input, 'GET');
export const mutate = <T>(org: string, path: string, input: unknown) => call<T>(org, path, input, 'POST');

/** Acknowledges alert instances as the signed-in user; returns the updated instances (dates as strings). */
export const ackAlerts = (org: string, ids: string[]) =>
  mutate<{ id: string; ackedBy: string | null; ackedAt: string | null }[]>(org, 'alerting.ack', { ids });
