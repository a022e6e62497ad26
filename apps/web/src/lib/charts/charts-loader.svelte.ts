import {
  unpackCharts,
  unpackDbCharts,
  type TChartsView,
  type TClusterCharts,
  type TDbCharts,
  type TDbTenant,
} from '@clusterscope/schema';
import { errorMessage, trpc } from '$lib/trpc';

export interface TChartsQuery {
  org: string;
  clusterId: string;
  nodeId?: number;
  from: number;
  to: number;
  /** The SQL panels' tenant choice (unset: every tenant summed). */
  tenant?: TDbTenant;
  /** The page data's `now`: a new value (the load re-ran on a live update) refetches. */
  now: number;
}

export interface TLoadedCharts {
  charts: TClusterCharts;
  db: TDbCharts;
}

/** Pure: the chart inputs from the packed wire form. */
export const unpackView = (v: TChartsView): TLoadedCharts => ({
  charts: unpackCharts(v.charts),
  db: unpackDbCharts(v.db),
});

/**
 * The charts of the cluster or node page, fetched by the browser after the page rendered (the server
 * HTML carries no chart data). Refetches when the query changes (range, live update: the page load
 * re-ran with a new window); the previous charts stay on screen until the new ones arrive, and a
 * late answer to an older query is dropped.
 */
export function loadCharts(query: () => TChartsQuery) {
  let current = $state<TLoadedCharts | null>(null);
  let error = $state<string | null>(null);
  let pending = $state(true);
  let seq = 0;

  $effect(() => {
    const q = query();
    void q.now; // a dependency: a live update re-ran the page load
    const mine = ++seq;
    pending = true;
    trpc(q.org)
      .dashboard.chartsView.query({
        id: q.clusterId,
        nodeId: q.nodeId,
        from: q.from,
        to: q.to,
        tenant: q.tenant,
      })
      .then((v) => {
        if (mine !== seq) return;
        current = unpackView(v);
        error = null;
      })
      .catch((err: unknown) => {
        if (mine === seq) error = errorMessage(err);
      })
      .finally(() => {
        if (mine === seq) pending = false;
      });
  });

  return {
    get current() {
      return current;
    },
    get error() {
      return error;
    },
    /** True until the first answer (or error) for the current query. */
    get pending() {
      return pending;
    },
  };
}
