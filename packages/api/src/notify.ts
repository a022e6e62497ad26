import type { TContext } from './trpc';

/** A live update for open pages (the web runtime fans it out over SSE). */
export type TNotify = (e: {
  orgId: string;
  topic: string;
  clusterId?: string;
  runId?: string;
  kinds?: string[];
}) => void;

/** Sends a live update when the web runtime provides `ctx.runtime.notify` (tests and scripts do not). */
export function notify(ctx: TContext, e: Parameters<TNotify>[0]): void {
  const n = ctx.runtime?.notify as TNotify | undefined;
  if (typeof n === 'function') n(e);
}

/** Fans a run change out (topic `samples` also names the `bench_sample` kind). */
export function notifyRun(
  ctx: TContext,
  orgId: string,
  runId: string,
  clusterId: string | null,
  topic = 'runs',
) {
  notify(ctx, {
    orgId,
    topic,
    runId,
    clusterId: clusterId ?? undefined,
    kinds: topic === 'samples' ? ['bench_sample'] : undefined,
  });
}

/** Awaits a run write, fans the run change out (run id and cluster taken from its result), returns the result. */
export async function notified<T>(
  ctx: TContext & { caller: { orgId: string } },
  write: Promise<T>,
  runOf: (r: T) => [runId: string, clusterId: string | null],
): Promise<T> {
  const r = await write;
  notifyRun(ctx, ctx.caller.orgId, ...runOf(r));
  return r;
}
