import type { TAlertInstance } from '@clusterscope/schema';
import type { getCaller } from '$lib/server/caller';
import { ms, type TMemberLike } from './format';

type TApi = Awaited<ReturnType<typeof getCaller>>;

/**
 * What the on-call list shows of an alert: the page carries no more (100 firing alerts are 100 of these),
 * with times as epoch ms (cheaper to serialize than dates).
 */
export type TOncallAlert = Pick<
  TAlertInstance,
  | 'id'
  | 'ruleName'
  | 'clusterName'
  | 'key'
  | 'labels'
  | 'state'
  | 'severity'
  | 'summary'
  | 'ackedBy'
  | 'silenced'
> & {
  activeAt: number | null;
  firedAt: number | null;
  resolvedAt: number | null;
  ackedAt: number | null;
};

export interface TOncallAlerts {
  alerts: TOncallAlert[];
  /** The members who acknowledged one of `alerts` (for "acknowledged by"). */
  members: TMemberLike[];
}

/**
 * Firing and pending alerts for the on-call page, plus the names of whoever acknowledged them. Alerting must
 * never break the page it sits on: on any error the page shows no alert list.
 */
export async function loadOncallAlerts(api: TApi): Promise<TOncallAlerts | null> {
  try {
    const list = await api.alerting.list({ state: 'firing,pending', limit: 100 });
    const ackers = new Set(list.flatMap((a) => (a.ackedBy?.startsWith('user:') ? [a.ackedBy.slice(5)] : [])));
    const members = ackers.size ? await api.orgs.members().catch(() => []) : [];
    return {
      alerts: list.map((a) => ({
        id: a.id,
        ruleName: a.ruleName,
        clusterName: a.clusterName,
        key: a.key,
        labels: a.labels,
        state: a.state,
        severity: a.severity,
        summary: a.summary,
        activeAt: ms(a.activeAt),
        firedAt: ms(a.firedAt),
        resolvedAt: ms(a.resolvedAt),
        ackedBy: a.ackedBy,
        ackedAt: ms(a.ackedAt),
        silenced: a.silenced,
      })),
      members: members.filter((m) => ackers.has(m.user.id)).map((m) => ({ user: m.user })),
    };
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
