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
