import {
  deleteWorkload as removeWorkload,
  DuplicateNameError,
  findAgentByName,
  getWorkload,
  insertQueuedRun,
  insertWorkload,
  listWorkloads,
  updateWorkload as patchWorkload,
  writeAudit,
  type TWorkloadRow,
} from '@clusterscope/db';
import {
  redactTarget,
  validateWorkload,
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
import type { TDeps } from './deps';
import { actorOf, assertCan, type TCaller } from './caller';
import { AppError, notFound } from './errors';
import { resolveCluster } from './clusters';
import { wakeJobWaiters } from './jobs';

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
    runs: w._count.runs,
    lastRun: last ? { id: last.id, status: last.status, startedAt: last.startedAt.toISOString() } : null,
    createdAt: w.createdAt.toISOString(),
    updatedAt: w.updatedAt.toISOString(),
  };
}

function checked(w: { tool: TTool; params: Record<string, unknown>; target: string }) {
  const v = validateWorkload(w);
  if (!v.ok)
    throw new AppError('UNPROCESSABLE_CONTENT', v.issues.map((i) => `${i.path}: ${i.message}`).join('; '), {
      issues: v.issues,
    });
  return v.params;
}

async function loadWorkload(deps: TDeps, caller: TCaller, idOrName: string) {
  const w = await getWorkload(deps.db, caller.orgId, idOrName);
  if (!w) throw notFound(`workload '${idOrName}'`);
  return w;
}

export async function findWorkloads(deps: TDeps, caller: TCaller): Promise<TWorkload[]> {
  assertCan(caller, { workload: ['read'] });
  return (await listWorkloads(deps.db, caller.orgId)).map(toWorkloadDto);
}

export async function getWorkloadById(deps: TDeps, caller: TCaller, idOrName: string): Promise<TWorkload> {
  assertCan(caller, { workload: ['read'] });
  return toWorkloadDto(await loadWorkload(deps, caller, idOrName));
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
  try {
    row = await insertWorkload(deps.db, caller.orgId, { ...w, params });
  } catch (err) {
    if (err instanceof DuplicateNameError)
      throw new AppError('CONFLICT', `name: a workload named '${w.name}' exists`);
    throw err;
  }
  await writeAudit(deps.db, caller.orgId, {
    ...actorOf(caller),
    action: 'workload.create',
    targetType: 'workload',
    targetId: row.id,
    data: { name: row.name, tool: row.tool },
  });
  return toWorkloadDto(row);
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
  const next = {
    tool: (changes.tool ?? cur.tool) as TTool,
    params: changes.params ?? asRecord(cur.params),
    target: changes.target ?? cur.target,
  };
  const params = checked(next);
  const data = Object.fromEntries(
    Object.entries({ ...changes, params, target: next.target }).filter(([, v]) => v !== undefined),
  );
  let row: TWorkloadRow | null;
  try {
    row = await patchWorkload(deps.db, caller.orgId, cur.id, data, cur.version);
  } catch (err) {
    if (err instanceof DuplicateNameError)
      throw new AppError('CONFLICT', `name: a workload named '${changes.name}' exists`);
    throw err;
  }
  if (!row)
    throw new AppError('CONFLICT', `workload '${cur.name}' was changed concurrently; reload and retry`);
  await writeAudit(deps.db, caller.orgId, {
    ...actorOf(caller),
    action: 'workload.update',
    targetType: 'workload',
    targetId: row.id,
    data: { name: row.name, version: row.version, fields: Object.keys(changes) },
  });
  return toWorkloadDto(row);
}

export async function deleteWorkload(deps: TDeps, caller: TCaller, id: string): Promise<{ id: string }> {
  assertCan(caller, { workload: ['write'] });
  const w = await loadWorkload(deps, caller, id);
  await removeWorkload(deps.db, caller.orgId, w.id);
  await writeAudit(deps.db, caller.orgId, {
    ...actorOf(caller),
    action: 'workload.delete',
    targetType: 'workload',
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
  const unavailable = active.reduce((s, n) => s + n.ranges_unavailable, 0);
  if (unavailable > 0) reasons.push(`${unavailable} range(s) unavailable`);
  return { ok: reasons.length === 0, reasons, nodes: active.length };
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
): Promise<TRunStarted> {
  assertCan(caller, { run: ['start'] });
  const q = ZWorkloadStart.parse(input);
  const w = await loadWorkload(deps, caller, q.id);
  const cluster = await resolveCluster(deps, caller, q.cluster);
  let agentId: string | null = null;
  if (q.agent) {
    const a = await findAgentByName(deps.db, caller.orgId, q.agent);
    if (!a) throw notFound(`agent '${q.agent}'`);
    if (a.clusterId && a.clusterId !== cluster.id)
      throw new AppError('UNPROCESSABLE_CONTENT', `agent: '${q.agent}' reports for another cluster`);
    agentId = a.id;
  }
  const tool = w.tool as TTool;
  const params = checked({ tool, params: asRecord(w.params), target: w.target });
  const gate = await checkClusterGate(deps, caller.orgId, cluster.id);
  if (!gate.ok && !q.force)
    throw new AppError(
      'CONFLICT',
      `cluster '${cluster.name}' is unhealthy: ${gate.reasons.join('; ')} (set force to run anyway)`,
      { reasons: gate.reasons },
    );
  const forced = !gate.ok && q.force;
  const key = TOOL_WORKLOAD_PARAM[tool];
  const run = await insertQueuedRun(deps.db, caller.orgId, {
    clusterId: cluster.id,
    workloadId: w.id,
    workloadVersion: w.version,
    tool,
    toolWorkload: key ? String(params[key] ?? '') : '',
    params: { ...params, target: redactTarget(w.target), durationS: w.durationS, warmupS: w.warmupS },
    labels: {
      ...q.labels,
      trigger: caller.kind === 'user' ? 'ui' : 'api',
      ...(forced ? { forced: 'true' } : {}),
    },
    forced,
    timeoutS: q.timeoutS ?? w.durationS * 2 + w.warmupS + 300,
    agentId,
    createdById: caller.kind === 'user' ? caller.userId : null,
  });
  await writeAudit(deps.db, caller.orgId, {
    ...actorOf(caller),
    action: 'run.start',
    targetType: 'run',
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
