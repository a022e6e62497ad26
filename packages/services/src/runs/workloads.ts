import * as repo from '@clusterscope/db';
import { DuplicateNameError, type TWorkloadRow } from '@clusterscope/db';
import {
  jobRefusals,
  redactTarget,
  TOOL_BINARIES,
  validateWorkload,
  type TJobLimits,
  type TRunStarted,
  type TTool,
  type TWorkload,
  type TWorkloadCreate,
  type TWorkloadPatch,
  type TWorkloadStart,
  ZWorkloadCreate,
  ZWorkloadStart,
} from '@clusterscope/schema';
import { getLatestNodes } from '@clusterscope/tsdb';
import type { TDeps } from '../core/deps';
import { audit } from '../tenancy/audit';
import { assertCan, type TCaller } from '../tenancy/caller';
import { AppError, notFound } from '../core/errors';
import { resolveCluster } from '../tenancy/clusters';
import { canSeeCluster } from '../tenancy/access';
import { wakeJobWaiters } from '../jobs/jobs';
import { isSealed, openSecret, resealSecret, sealSecret, secretKeysOf } from '../core/secrets';

const asRecord = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

export function toWorkloadDto(w: TWorkloadRow): TWorkload {
  const last = w.runs[0];
  return {
    id: w.id,
    name: w.name,
    tool: w.tool,
    version: w.version,
    params: asRecord(w.params),
    target: redactTarget(w.target),
    durationS: w.durationS,
    warmupS: w.warmupS,
    description: w.description,
    verdictMetrics: w.verdictMetrics,
    confirmRuns: w.confirmRuns,
    changeClusterIds: w.changeClusterIds,
    runs: w._count.runs,
    lastRun: last
      ? {
          id: last.id,
          status: last.status,
          startedAt: last.startedAt.toISOString(),
          clusterId: last.clusterId,
        }
      : null,
    createdAt: w.createdAt.toISOString(),
    updatedAt: w.updatedAt.toISOString(),
  };
}

/**
 * What is stored for a target: the redacted form in `target`, and the full one sealed in `targetSecret` when
 * it carries a password (bound to the org). A target without a password needs no secret.
 */
function sealTarget(
  deps: TDeps,
  orgId: string,
  full: string,
): { target: string; targetSecret: string | null } {
  const target = redactTarget(full);
  return { target, targetSecret: target === full ? null : sealSecret(secretKeysOf(deps), full, orgId) };
}

/** The full target of a stored workload (only the job handed to the claiming agent gets this). */
export function openWorkloadTarget(
  deps: TDeps,
  w: { organizationId: string; target: string; targetSecret: string | null },
): string {
  return w.targetSecret ? openSecret(secretKeysOf(deps), w.targetSecret, w.organizationId) : w.target;
}

/**
 * Start-up backfill and `admin secrets rotate`: seals any target still stored with a clear password (rows
 * from before encryption) and, with `rotate`, re-seals secrets made with an older key under SECRETS_KEY.
 */
export async function sealWorkloadSecrets(
  deps: TDeps,
  opts: { rotate?: boolean } = {},
): Promise<{ sealed: number; rotated: number; failed: string[] }> {
  const keys = secretKeysOf(deps);
  let sealed = 0;
  let rotated = 0;
  const failed: string[] = [];
  for (const w of await repo.listWorkloadSecrets(deps.db)) {
    try {
      if (!w.targetSecret) {
        const next = sealTarget(deps, w.organizationId, w.target);
        if (next.targetSecret && (await repo.replaceWorkloadSecret(deps.db, w.id, w, next))) sealed++;
      } else if (opts.rotate && isSealed(w.targetSecret)) {
        const again = resealSecret(keys, w.targetSecret, w.organizationId);
        if (again && (await repo.replaceWorkloadSecret(deps.db, w.id, w, { ...w, targetSecret: again })))
          rotated++;
      }
    } catch (err) {
      failed.push(`${w.id}: ${(err as Error).message}`);
    }
  }
  return { sealed, rotated, failed };
}

function checked(w: { tool: TTool; params: Record<string, unknown>; target: string }) {
  const v = validateWorkload(w);
  if (!v.ok)
    throw new AppError('UNPROCESSABLE_CONTENT', v.issues.map((i) => `${i.path}: ${i.message}`).join('; '), {
      issues: v.issues,
    });
  return v.params;
}

/** Hides the last run when it is of a cluster the caller may not see. */
const visibleRuns = (caller: TCaller, w: TWorkloadRow): TWorkloadRow =>
  w.runs.every((r) => canSeeCluster(caller, r.clusterId)) ? w : { ...w, runs: [] };

async function loadWorkload(deps: TDeps, caller: TCaller, idOrName: string) {
  const w = await repo.getWorkload(deps.db, caller.orgId, idOrName);
  if (!w) throw notFound(`workload '${idOrName}'`);
  return w;
}

export async function listWorkloads(deps: TDeps, caller: TCaller): Promise<TWorkload[]> {
  assertCan(caller, { workload: ['read'] });
  return (await repo.listWorkloads(deps.db, caller.orgId)).map((w) => toWorkloadDto(visibleRuns(caller, w)));
}

export async function getWorkload(deps: TDeps, caller: TCaller, idOrName: string): Promise<TWorkload> {
  assertCan(caller, { workload: ['read'] });
  return toWorkloadDto(visibleRuns(caller, await loadWorkload(deps, caller, idOrName)));
}

export async function createWorkload(
  deps: TDeps,
  caller: TCaller,
  input: TWorkloadCreate,
): Promise<TWorkload> {
  assertCan(caller, { workload: ['write'] });
  const parsed = ZWorkloadCreate.safeParse(input);
  if (!parsed.success)
    throw new AppError(
      'UNPROCESSABLE_CONTENT',
      parsed.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; '),
    );
  const w = parsed.data;
  const params = checked(w);
  let row: TWorkloadRow;
  const changeClusterIds = await resolveClusterIds(deps, caller, w.changeClusterIds);
  try {
    row = await repo.insertWorkload(deps.db, caller.orgId, {
      ...w,
      changeClusterIds,
      params,
      ...sealTarget(deps, caller.orgId, w.target),
    });
  } catch (err) {
    if (err instanceof DuplicateNameError)
      throw new AppError('CONFLICT', `name: a workload named '${w.name}' exists`);
    throw err;
  }
  await audit(deps, caller, {
    action: 'workload.create',
    targetId: row.id,
    data: { name: row.name, tool: row.tool },
  });
  return toWorkloadDto(row);
}

/** Cluster ids or names as ids (404 naming an unknown one), each once. */
async function resolveClusterIds(deps: TDeps, caller: TCaller, refs: readonly string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const r of refs) ids.push((await resolveCluster(deps, caller, r)).id);
  return [...new Set(ids)];
}

/** Any change bumps the version; runs keep the version they were started with. */
export async function updateWorkload(
  deps: TDeps,
  caller: TCaller,
  patch: TWorkloadPatch,
): Promise<TWorkload> {
  assertCan(caller, { workload: ['write'] });
  const cur = await loadWorkload(deps, caller, patch.id);
  const { id: _id, ...changes } = patch;
  void _id;
  // The stored (redacted) target sent back unchanged keeps its secret.
  const keep = changes.target === undefined || changes.target === cur.target;
  const next = {
    tool: (changes.tool ?? cur.tool) as TTool,
    params: changes.params ?? asRecord(cur.params),
    target: keep ? openWorkloadTarget(deps, cur) : changes.target!,
  };
  const params = checked(next);
  const data = Object.fromEntries(
    Object.entries({
      ...changes,
      changeClusterIds:
        changes.changeClusterIds && (await resolveClusterIds(deps, caller, changes.changeClusterIds)),
      params,
      ...(keep ? { target: undefined } : sealTarget(deps, caller.orgId, next.target)),
    }).filter(([, v]) => v !== undefined),
  );
  let row: TWorkloadRow | null;
  try {
    row = await repo.updateWorkload(deps.db, caller.orgId, cur.id, data, cur.version);
  } catch (err) {
    if (err instanceof DuplicateNameError)
      throw new AppError('CONFLICT', `name: a workload named '${changes.name}' exists`);
    throw err;
  }
  if (!row)
    throw new AppError('CONFLICT', `workload '${cur.name}' was changed concurrently; reload and retry`);
  await audit(deps, caller, {
    action: 'workload.update',
    targetId: row.id,
    data: { name: row.name, version: row.version, fields: Object.keys(changes) },
  });
  return toWorkloadDto(row);
}

export async function deleteWorkload(deps: TDeps, caller: TCaller, id: string): Promise<{ id: string }> {
  assertCan(caller, { workload: ['write'] });
  const w = await loadWorkload(deps, caller, id);
  await repo.deleteWorkload(deps.db, caller.orgId, w.id);
  await audit(deps, caller, {
    action: 'workload.delete',
    targetId: w.id,
    data: { name: w.name },
  });
  return { id: w.id };
}

export interface TClusterGate {
  ok: boolean;
  reasons: string[];
  nodes: number;
}

/**
 * The health gate: every (not decommissioned) node LIVE and no unavailable ranges, from the latest node
 * states. A cluster that never reported nodes (a plain PostgreSQL or HTTP target) passes, with a note.
 */
export async function checkClusterGate(deps: TDeps, orgId: string, clusterId: string): Promise<TClusterGate> {
  let nodes;
  try {
    nodes = await getLatestNodes(deps.ch, orgId, clusterId);
  } catch (err) {
    throw new AppError('SERVICE_UNAVAILABLE', `ClickHouse is unavailable: ${(err as Error).message}`, {
      dependency: 'clickhouse',
    });
  }
  const active = nodes.filter((n) => n.liveness !== 'DECOMMISSIONED');
  if (active.length === 0)
    return {
      ok: true,
      reasons: ['no node data for this cluster (not a monitored CockroachDB cluster?): health not checked'],
      nodes: 0,
    };
  const reasons: string[] = [];
  for (const n of active) if (n.liveness !== 'LIVE') reasons.push(`node ${n.node_id} is ${n.liveness}`);
  const unavailable = active.reduce((s, n) => s + (n.ranges_unavailable ?? 0), 0);
  if (unavailable > 0) reasons.push(`${unavailable} range(s) unavailable`);
  return { ok: reasons.length === 0, reasons, nodes: active.length };
}

const asLimits = (v: unknown): TJobLimits | null => {
  const l = asRecord(v);
  return Array.isArray(l.allowedDirs) && Array.isArray(l.allowedHosts) && typeof l.maxFileBytes === 'number'
    ? (l as unknown as TJobLimits)
    : null;
};

/**
 * Checks a run against the job limits (allowed dirs/hosts, file size cap) the cluster's agents advertise:
 * the named agent, else every agent of the cluster with the tool. 422 with the reasons when none allows it;
 * when only some do, the run is reserved for the most recently seen of those. Agents that advertise no
 * limits (jobs off, or older than job confinement) are not checked here; they refuse nothing.
 * `secret:<name>` targets resolve on the agent, which checks them itself.
 */
async function checkAgentLimits(
  deps: TDeps,
  orgId: string,
  clusterId: string,
  job: { tool: TTool; params: Record<string, unknown>; target: string; agentId: string | null },
): Promise<string | null> {
  const bin = TOOL_BINARIES[job.tool];
  const agents = (await repo.listClusterJobAgents(deps.db, orgId, clusterId)).filter((a) =>
    job.agentId
      ? a.id === job.agentId
      : a.capabilities.includes(bin) && !a.disabledTools.includes(job.tool) && !a.disabledTools.includes(bin),
  );
  const checked = agents
    .map((a) => ({ a, limits: asLimits(a.jobLimits) }))
    .filter((x) => x.limits !== null)
    .map(({ a, limits }) => ({ a, why: jobRefusals(job, limits!) }));
  if (checked.length === 0) return job.agentId;
  const fits = checked.filter((x) => x.why.length === 0);
  if (fits.length === 0)
    throw new AppError(
      'UNPROCESSABLE_CONTENT',
      `target: no agent of this cluster allows this run: ${checked
        .map((x) => `agent '${x.a.name}': ${x.why.join('; ')}`)
        .join(' | ')}`,
      { agents: Object.fromEntries(checked.map((x) => [x.a.name, x.why])) },
    );
  if (job.agentId || fits.length === agents.length) return job.agentId;
  return fits[0]!.a.id;
}

const TOOL_WORKLOAD_PARAM: Record<TTool, string | null> = {
  pgbench: 'builtin',
  sysbench: 'test',
  'cockroach-workload': 'workload',
  fio: 'rw',
  hey: null,
  wrk: null,
};

/** Queues a run of a workload after the cluster health gate (409 with the reasons unless `force`). */
export async function startWorkloadRun(
  deps: TDeps,
  caller: TCaller,
  input: TWorkloadStart,
  /** What started it when not a person or a client of the API: a schedule, a confirmation of a regression, or a cluster's build change. */
  trigger?: 'schedule' | 'confirmation' | 'change',
): Promise<TRunStarted> {
  assertCan(caller, { run: ['start'] });
  const q = ZWorkloadStart.parse(input);
  const w = await loadWorkload(deps, caller, q.id);
  const cluster = await resolveCluster(deps, caller, q.cluster);
  let agentId: string | null = null;
  if (q.agent) {
    const a = await repo.findAgentByName(deps.db, caller.orgId, q.agent);
    if (!a) throw notFound(`agent '${q.agent}'`);
    if (a.clusterId && a.clusterId !== cluster.id)
      throw new AppError('UNPROCESSABLE_CONTENT', `agent: '${q.agent}' reports for another cluster`);
    agentId = a.id;
  }
  const tool = w.tool as TTool;
  const params = checked({ tool, params: asRecord(w.params), target: w.target });
  agentId = await checkAgentLimits(deps, caller.orgId, cluster.id, {
    tool,
    params,
    target: w.target,
    agentId,
  });
  const gate = await checkClusterGate(deps, caller.orgId, cluster.id);
  if (!gate.ok && !q.force)
    throw new AppError(
      'CONFLICT',
      `cluster '${cluster.name}' is unhealthy: ${gate.reasons.join('; ')} (set force to run anyway)`,
      { reasons: gate.reasons },
    );
  const forced = !gate.ok && q.force;
  const key = TOOL_WORKLOAD_PARAM[tool];
  const run = await repo.insertQueuedRun(deps.db, caller.orgId, {
    clusterId: cluster.id,
    workloadId: w.id,
    workloadVersion: w.version,
    tool,
    toolWorkload: key ? String(params[key] ?? '') : '',
    params: { ...params, target: redactTarget(w.target), durationS: w.durationS, warmupS: w.warmupS },
    labels: {
      ...q.labels,
      trigger: trigger ?? (caller.kind === 'user' ? 'ui' : 'api'),
      ...(forced ? { forced: 'true' } : {}),
    },
    forced,
    timeoutS: q.timeoutS ?? w.durationS * 2 + w.warmupS + 300,
    agentId,
    createdById: caller.kind === 'user' ? caller.userId : null,
  });
  await audit(deps, caller, {
    action: 'run.start',
    targetId: run.id,
    data: {
      workload: w.name,
      version: w.version,
      cluster: cluster.name,
      agent: q.agent ?? null,
      forced,
      health: gate.reasons,
    },
  });
  wakeJobWaiters(deps, caller.orgId);
  return { id: run.id, status: run.status, forced, health: gate };
}
