import {
  findClusterByName,
  getCluster,
  updateAgentHeartbeat,
  upsertLegacyAgentHeartbeat,
} from '@clusterscope/db';
import type { THeartbeatSample, TSampleKind } from '@clusterscope/schema';
import { createWriter, EncodeError, type TTsdb, type TWriter, type TWriterOptions } from '@clusterscope/tsdb';
import type { TDeps } from '../core/deps';
import { hasScope, type TCaller } from '../tenancy/caller';
import { AppError } from '../core/errors';
import { WorkerError, type TPrepared } from './ingest-pool';
import type { TBatchHead } from './ingest-prep';
import { logOf } from '../core/logger';

const writers = new WeakMap<TTsdb, TWriter>();

/** The process's one ingest writer for this ClickHouse handle, created on first use. */
export function getIngestWriter(deps: Pick<TDeps, 'ch'>, opts?: TWriterOptions): TWriter {
  let w = writers.get(deps.ch);
  if (!w) {
    w = createWriter(deps.ch, opts);
    writers.set(deps.ch, w);
  }
  return w;
}

export interface TIngestResult {
  accepted: number;
  duplicate: boolean;
  clusterId: string;
  kinds: TSampleKind[];
  /** Runs that got bench_sample rows (for live updates). */
  runIds: string[];
  /** Samples older than the series cache's freshness edge were stored: other instances drop that cluster's entries. */
  late: boolean;
}

/**
 * The cluster a batch is for: the token's bound cluster, else `cluster` (id or name).
 * A batch naming another cluster than the token's is FORBIDDEN; an unknown one NOT_FOUND.
 */
export async function resolveIngestCluster(
  deps: TDeps,
  caller: TCaller,
  named: string | undefined,
): Promise<string> {
  const bound = caller.kind === 'token' ? caller.clusterId : null;
  if (bound) {
    if (named === undefined || named === bound) return bound;
    const byName = await findClusterByName(deps.db, caller.orgId, named);
    if (byName?.id === bound) return bound;
    throw new AppError(
      'FORBIDDEN',
      `this token is bound to cluster ${bound}; the batch names cluster '${named}'`,
    );
  }
  if (named === undefined)
    throw new AppError(
      'UNPROCESSABLE_CONTENT',
      "cluster: required (send the cluster id or name in 'cluster', or use a token bound to a cluster)",
    );
  const c =
    (await getCluster(deps.db, caller.orgId, named)) ??
    (await findClusterByName(deps.db, caller.orgId, named));
  if (!c) throw new AppError('NOT_FOUND', `cluster '${named}' not found in this organization`);
  return c.id;
}

/** ClickHouse failures become 503 naming the dependency, so agents keep the batch and retry. */
function toIngestError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof EncodeError) return new AppError('BAD_REQUEST', err.message);
  if (err instanceof WorkerError)
    return new AppError('SERVICE_UNAVAILABLE', err.message, { dependency: 'ingest-worker' });
  const msg = err instanceof Error ? err.message : String(err);
  return new AppError('SERVICE_UNAVAILABLE', `ClickHouse is unavailable: ${msg}`, {
    dependency: 'clickhouse',
  });
}

/**
 * Stores a validated batch (decoded here or on an ingest worker) for the caller's org: the payload
 * never chooses the org. Resolves after ClickHouse confirmed the insert. Heartbeats then upsert the
 * Agent row (one Postgres write per batch, never per sample).
 */
export async function ingestPrepared(
  deps: TDeps,
  caller: TCaller,
  prepared: TPrepared,
  writer: TWriter = getIngestWriter(deps),
): Promise<TIngestResult> {
  if (!hasScope(caller, 'ingest'))
    throw new AppError(
      'FORBIDDEN',
      caller.kind === 'token' ? "token lacks the 'ingest' scope" : 'ingest requires an API token',
    );
  const head = prepared.head;
  const clusterId = await resolveIngestCluster(deps, caller, head.cluster);
  let res;
  try {
    res = await writer.writeEncoded(caller.orgId, head.batchId, head.count, () =>
      prepared.encode(caller.orgId, clusterId, head.agent?.name),
    );
  } catch (err) {
    throw toIngestError(err);
  }
  const late = !res.duplicate && head.oldest !== null && (deps.series?.settled(head.oldest) ?? false);
  // This instance's cache sees the write at once (read-your-writes); the others hear the notice.
  if (late) deps.series?.invalidate(caller.orgId, clusterId);
  else if (!res.duplicate) deps.series?.changed(caller.orgId, clusterId, head.kinds);
  if (head.heartbeat && !res.duplicate) await recordHeartbeat(deps, caller, clusterId, head, head.heartbeat);
  return { ...res, clusterId, kinds: head.kinds, runIds: head.runIds, late };
}

/**
 * An agent credential's heartbeat updates its own Agent row (the name in the payload is ignored, the
 * cluster stays the enrolled one). A legacy ingest token may still register and update agents that are
 * not enrolled, in the token's cluster only: it never touches an enrolled agent or moves one between clusters.
 */
async function recordHeartbeat(
  deps: TDeps,
  caller: TCaller,
  clusterId: string,
  batch: Pick<TBatchHead, 'agent'>,
  hb: THeartbeatSample,
) {
  const data = {
    version: hb.version || batch.agent?.version || '',
    capabilities: hb.capabilities,
    outboxBytes: hb.outbox_bytes,
    outboxEvictions: hb.outbox_evictions,
    uptimeS: hb.uptime_s,
    seenAt: new Date(Math.min(hb.ts, Date.now())),
    jobLimits: hb.job_limits
      ? {
          allowedDirs: hb.job_limits.allowed_dirs,
          allowedHosts: hb.job_limits.allowed_hosts,
          maxFileBytes: hb.job_limits.max_file_bytes,
        }
      : null,
    ...(hb.inputs ? { inputs: hb.inputs } : {}),
  };
  try {
    if (caller.kind === 'token' && caller.agentId) await updateAgentHeartbeat(deps.db, caller.agentId, data);
    else {
      const name = batch.agent?.name ?? hb.host;
      const row = await upsertLegacyAgentHeartbeat(deps.db, caller.orgId, { ...data, name, clusterId });
      if (!row)
        logOf(deps).warn(
          { agent: name },
          'heartbeat ignored: the agent is enrolled or in another cluster (use its agent credential)',
        );
    }
  } catch (err) {
    // The samples are stored; a failed Agent upsert must not make the agent resend them.
    logOf(deps).warn({ err: (err as Error).message }, 'agent heartbeat upsert failed');
  }
}
