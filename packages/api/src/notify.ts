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
export function notify(ctx: Pick<TContext, 'runtime'>, e: Parameters<TNotify>[0]): void {
  const n = ctx.runtime?.notify as TNotify | undefined;
  if (typeof n === 'function') n(e);
}

/** Fans a run change out (topic `samples` also names the `bench_sample` kind). */
export function notifyRun(
  ctx: Pick<TContext, 'runtime'>,
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

type TRunRef = [runId: string, clusterId: string | null];
type TWriteOpts = { ctx: Pick<TContext, 'runtime'> & { caller: { orgId: string } } };

/**
 * A run write's resolver that, once it resolved, fans the run change out: the run and cluster named by
 * `runOf(result, input)` (none when null), by default the input's `id` (cluster unknown).
 */
export function notifying<T extends TWriteOpts & { input: { id: string } }, R>(
  resolve: (opts: T) => Promise<R>,
): (opts: T) => Promise<R>;
export function notifying<T extends TWriteOpts & { input: unknown }, R>(
  resolve: (opts: T) => Promise<R>,
  runOf: (r: R, input: T['input']) => TRunRef | null,
): (opts: T) => Promise<R>;
export function notifying<T extends TWriteOpts & { input: { id?: string } }, R>(
  resolve: (opts: T) => Promise<R>,
  runOf: (r: R, input: T['input']) => TRunRef | null = (_, input) => [input.id!, null],
) {
  return async (opts: T) => {
    const r = await resolve(opts);
    const run = runOf(r, opts.input);
    if (run) notifyRun(opts.ctx, opts.ctx.caller.orgId, ...run);
    return r;
  };
}
