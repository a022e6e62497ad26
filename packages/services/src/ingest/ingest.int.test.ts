import { createCluster, createOrganization, listAgents, type TDb } from '@clusterscope/db';
import type { THeartbeatSample, TNodeStatusSample } from '@clusterscope/schema';
import type { TIngestBatch } from '@clusterscope/schema';
import { createWriter, getBenchSamples, selectRows, type TTsdb } from '@clusterscope/tsdb';
import type { TWriter } from '@clusterscope/tsdb';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TCaller } from '../tenancy/caller';
import type { TDeps } from '../core/deps';
import { AppError } from '../core/errors';
import { ingestPrepared } from './ingest';
import { holdInProcess } from './ingest-pool';
import { headOf, MAX_ISSUES, validateIngestBatch } from './ingest-prep';
import { useTestEnv, errorCode } from '../core/test-env';

/** Stores a batch the way the ingest route does (decoded in process). */
const ingestBatch = (deps: TDeps, caller: TCaller, batch: TIngestBatch, writer?: TWriter) =>
  ingestPrepared(deps, caller, holdInProcess(headOf(batch), batch.samples), writer);

const env = useTestEnv();
let db: TDb;
let ch: TTsdb;
let deps: TDeps;
let org: { id: string };
let org2: { id: string };
let prod: { id: string };
let stage: { id: string };
const tok = (o: Partial<Extract<TCaller, { kind: 'token' }>> = {}): TCaller => ({
  kind: 'token',
  tokenId: 't1',
  orgId: org.id,
  orgSlug: 'acme',
  scopes: ['ingest'],
  clusterId: null,
  ...o,
});

const node = (ts: number, node_id = 1): TNodeStatusSample => ({
  kind: 'node_status', ts, node_id, address: `n${node_id}:26257`, sql_address: '', locality: '', build: 'v23',
  started_at: null, updated_at: ts, liveness: 'LIVE', is_live: true, is_available: true, is_draining: false,
  membership: 'active', replicas: 10, replicas_leaders: 3, replicas_leaseholders: 3, ranges: 10,
  ranges_unavailable: 0, ranges_underreplicated: 0, live_bytes: 1, key_bytes: 1, value_bytes: 1, intent_bytes: 0,
  system_bytes: 0, capacity: 100, capacity_available: 50, capacity_used: 50, uptime_s: 1,
}); // prettier-ignore

const hb = (ts: number, evictions = 0): THeartbeatSample => ({
  kind: 'heartbeat',
  ts,
  host: 'db-1',
  version: '0.3.0',
  uptime_s: 42,
  capabilities: ['cockroachdb', 'cgroup'],
  outbox_bytes: 2048,
  outbox_pending: 1,
  outbox_evictions: evictions,
  metrics_dropped: 0,
});

async function count(table: string, orgId: string): Promise<number> {
  const rows = await selectRows<{ n: number }>(
    ch,
    `SELECT count() AS n FROM ${table} WHERE org_id = {org_id:String}`,
    { org_id: orgId },
  );
  return Number(rows[0]?.n ?? 0);
}

beforeAll(async () => {
  ({ db, deps, ch } = env);
  org = await createOrganization(db, { name: 'Acme', slug: 'acme' });
  org2 = await createOrganization(db, { name: 'Other', slug: 'other' });
  prod = await createCluster(db, org.id, { name: 'prod' });
  stage = await createCluster(db, org.id, { name: 'stage' });
  await createCluster(db, org2.id, { name: 'theirs' });
});

describe('validateIngestBatch', () => {
  it('names the JSON path of every invalid item and caps the list', () => {
    const bad = Array.from({ length: 300 }, (_, i) => ({ ...node(1000 + i), replicas: -1 }));
    const r = validateIngestBatch({ batchId: 'b-valid-1', samples: bad });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.total).toBe(300);
    expect(r.issues).toHaveLength(MAX_ISSUES);
    expect(r.issues[3]).toMatch(/^samples\.3\.replicas: /);
  });

  it('accepts a valid batch and fills defaults', () => {
    const r = validateIngestBatch({
      batchId: 'b-valid-2',
      samples: [{ ...node(1), sql_address: undefined }],
    });
    expect(r.ok && r.batch.samples[0].kind === 'node_status' && r.batch.samples[0].sql_address).toBe('');
  });
});

describe('ingestBatch', () => {
  it('stores samples for the token org and cluster (by name), once per batch id', async () => {
    const w = createWriter(ch);
    const batch = {
      batchId: 'batch-0001',
      cluster: 'prod',
      samples: [node(Date.now()), node(Date.now(), 2)],
    };
    const r1 = await ingestBatch(deps, tok(), batch, w);
    expect(r1).toMatchObject({ accepted: 2, duplicate: false, clusterId: prod.id, kinds: ['node_status'] });
    const r2 = await ingestBatch(deps, tok(), batch, w);
    expect(r2.duplicate).toBe(true);
    await w.close();
    // A new writer (as after a restart) still knows the batch from the ledger table.
    const w2 = createWriter(ch);
    expect((await ingestBatch(deps, tok(), batch, w2)).duplicate).toBe(true);
    await w2.close();
    expect(await count('node_status', org.id)).toBe(2);
    expect(await count('node_status', org2.id)).toBe(0);
  });

  it('uses the bound cluster; a batch naming another cluster is FORBIDDEN', async () => {
    const w = createWriter(ch);
    const bound = tok({ clusterId: stage.id });
    const r = await ingestBatch(deps, bound, { batchId: 'batch-bound-1', samples: [node(Date.now())] }, w);
    expect(r.clusterId).toBe(stage.id);
    const byName = { batchId: 'batch-bound-2', cluster: 'stage', samples: [node(Date.now())] };
    expect((await ingestBatch(deps, bound, byName, w)).clusterId).toBe(stage.id);
    const other = { batchId: 'batch-bound-3', cluster: 'prod', samples: [node(Date.now())] };
    expect(await errorCode(ingestBatch(deps, bound, other, w))).toBe('FORBIDDEN');
    await w.close();
  });

  it('rejects unknown clusters, other orgs clusters, a missing cluster and tokens without ingest', async () => {
    const s = [node(Date.now())];
    expect(
      await errorCode(ingestBatch(deps, tok(), { batchId: 'batch-x-1', cluster: 'nope', samples: s })),
    ).toBe('NOT_FOUND');
    expect(
      await errorCode(ingestBatch(deps, tok(), { batchId: 'batch-x-2', cluster: 'theirs', samples: s })),
    ).toBe('NOT_FOUND');
    expect(await errorCode(ingestBatch(deps, tok(), { batchId: 'batch-x-3', samples: s }))).toBe(
      'UNPROCESSABLE_CONTENT',
    );
    const ro = tok({ scopes: ['read', 'runs:write'] });
    expect(
      await errorCode(ingestBatch(deps, ro, { batchId: 'batch-x-4', cluster: 'prod', samples: s })),
    ).toBe('FORBIDDEN');
  });

  it('upserts the Agent row from the latest heartbeat of a batch', async () => {
    const now = Date.now();
    const batch = {
      batchId: 'batch-hb-1',
      cluster: 'prod',
      agent: { name: 'agent-db-1', version: '0.3.0' },
      samples: [hb(now - 10_000, 1), hb(now, 4)],
    };
    await ingestBatch(deps, tok(), batch);
    const [a] = await listAgents(db, org.id);
    expect(a).toMatchObject({ name: 'agent-db-1', clusterId: prod.id, version: '0.3.0', outboxEvictions: 4 });
    expect(a.capabilities).toEqual(['cockroachdb', 'cgroup']);
    expect(a.lastSeenAt?.getTime()).toBe(now);
    expect(await listAgents(db, org2.id)).toHaveLength(0);
  });

  it('keeps bench samples per org and reports their run ids', async () => {
    const r = await ingestBatch(deps, tok(), {
      batchId: 'batch-bench-1',
      cluster: 'prod',
      samples: [
        { kind: 'bench_sample', ts: Date.now(), run_id: 'run-1', elapsed_s: 1, values: { tps: 5, qps: 9 } },
      ],
    });
    expect(r.runIds).toEqual(['run-1']);
    expect(await getBenchSamples(ch, org.id, ['run-1'])).toHaveLength(2);
    expect(await getBenchSamples(ch, org2.id, ['run-1'])).toHaveLength(0);
  });

  it('answers SERVICE_UNAVAILABLE naming ClickHouse when it is down', async () => {
    await env.closeCh();
    const err = await ingestBatch(deps, tok(), {
      batchId: 'batch-down-1',
      cluster: 'prod',
      samples: [node(Date.now())],
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('SERVICE_UNAVAILABLE');
    expect((err as AppError).details).toEqual({ dependency: 'clickhouse' });
  });
});
