/** What a cluster's one status needs besides node data: its firing alerts and its agents' failing inputs. */
import { listAgentInputs, listInstances, listSilences } from '@clusterscope/db';
import {
  QUIET_AFTER_MS,
  ZInputState,
  type TFailingInput,
  type TInputState,
  type TSeverity,
} from '@clusterscope/schema';
import { z } from 'zod';
import type { TDeps } from '../core/deps';
import { boundClusterOf, canSeeCluster } from '../tenancy/access';
import { can, type TCaller } from '../tenancy/caller';
import { isSilenced } from '../alerting/silences-match';
import type { TStatusAlert, TStatusExtras } from './health-views';

/** Firing instances read per status load; an org with more shows the count of these. */
const FIRING_LIMIT = 1000;

const ZStoredInputs = z.array(ZInputState);

/** An agent row's stored `inputs` (malformed or absent: none). */
export function toInputStates(stored: unknown): TInputState[] {
  const r = ZStoredInputs.safeParse(stored);
  return r.success ? r.data : [];
}

/** The failing inputs in an agent row's stored `inputs`. */
export function toFailingInputs(agent: string, stored: unknown): TFailingInput[] {
  return toInputStates(stored)
    .filter((i) => i.state === 'failing')
    .map((i) => ({ agent, input: i.input, error: i.error, since: i.since, failures: i.failures }));
}

/** Firing alert instances by cluster id, each marked silenced or not, in `scope` (all clusters: undefined). */
async function loadFiringAlerts(deps: TDeps, caller: TCaller, scope: string | undefined, at: Date) {
  const out = new Map<string, TStatusAlert[]>();
  if (!can(caller, { alert: ['read'] })) return out;
  const [firing, silences] = await Promise.all([
    listInstances(deps.db, caller.orgId, { states: ['firing'], clusterId: scope, limit: FIRING_LIMIT }),
    listSilences(deps.db, caller.orgId, { activeAt: at }),
  ]);
  for (const i of firing) {
    const labels = (i.labels ?? {}) as Record<string, string>;
    const list = out.get(i.clusterId) ?? [];
    list.push({
      id: i.id,
      severity: i.severity as TSeverity,
      summary: i.summary || i.rule.name,
      silenced: isSilenced(silences, { clusterId: i.clusterId, ruleId: i.ruleId, labels }, at),
      firedAt: i.firedAt ? i.firedAt.getTime() : null,
    });
    out.set(i.clusterId, list);
  }
  return out;
}

/**
 * Per cluster id, the extras of its status: firing alerts (when the caller may read alerts) and the failing
 * inputs of agents heard from within QUIET_AFTER_MS. Scoped to the caller's org and bound cluster.
 */
export async function loadStatusExtras(
  deps: TDeps,
  caller: TCaller,
  clusterId?: string,
  now: number = Date.now(),
): Promise<(clusterId: string) => TStatusExtras> {
  const bound = boundClusterOf(caller);
  if (bound && clusterId && clusterId !== bound) return () => ({ now });
  const scope = bound ?? clusterId;
  const [alerts, agents] = await Promise.all([
    loadFiringAlerts(deps, caller, scope, new Date(now)),
    listAgentInputs(deps.db, caller.orgId, new Date(now - QUIET_AFTER_MS), scope),
  ]);
  const inputs = new Map<string, TFailingInput[]>();
  for (const a of agents) {
    if (!a.clusterId || !canSeeCluster(caller, a.clusterId)) continue;
    const failing = toFailingInputs(a.name, a.inputs);
    if (failing.length) inputs.set(a.clusterId, [...(inputs.get(a.clusterId) ?? []), ...failing]);
  }
  return (id) => ({ now, alerts: alerts.get(id) ?? [], inputs: inputs.get(id) ?? [] });
}

/** The navigation badge: unsilenced firing alerts in the caller's clusters, and how many are critical. */
export async function countFiringAlerts(deps: TDeps, caller: TCaller, now: number = Date.now()) {
  const alerts = await loadFiringAlerts(deps, caller, boundClusterOf(caller), new Date(now));
  const firing = [...alerts.values()].flat().filter((a) => !a.silenced);
  return { firing: firing.length, critical: firing.filter((a) => a.severity === 'critical').length };
}
