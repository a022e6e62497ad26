import type { TAlertInstance } from '@clusterscope/schema';
import type { getCaller } from '$lib/server/caller';
import type { TMemberLike } from './format';

type TApi = Awaited<ReturnType<typeof getCaller>>;

export interface TOncallAlerts {
  alerts: TAlertInstance[];
  members: TMemberLike[];
}

/**
 * Firing and pending alerts for the on-call page, plus member names for "acknowledged by". Alerting must
 * never break the page it sits on: on any error the page shows no alert list.
 */
export async function loadOncallAlerts(api: TApi): Promise<TOncallAlerts | null> {
  try {
    const [alerts, members] = await Promise.all([
      api.alerting.list({ state: 'firing,pending', limit: 100 }),
      api.orgs.members().catch(() => []),
    ]);
    return { alerts, members: members.map((m) => ({ user: m.user })) };
  } catch {
    return null;
  }
}

/** Alerts of one cluster over a time range, for the timeline beside the cluster's events. */
export async function loadClusterAlerts(
  api: TApi,
  clusterId: string,
  range: { from: number; to: number },
): Promise<TAlertInstance[] | null> {
  try {
    return await api.alerting.list({ clusterId, from: range.from, to: range.to, limit: 200 });
  } catch {
    return null;
  }
}
