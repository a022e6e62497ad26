/**
 * The SQL panels per tenant on the real embedded PostgreSQL and chDB, fed the recorded v25+ `/_status/vars`
 * (node_id and tenant labels, apps/agent/src/inputs/prometheus/fixtures) through ingest: the tenant label is
 * stored, the panels sum the tenants by default, split them or show one; scrapes without the label still
 * read as before.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { unpackDbCharts, ZIngestBatch, type TChartSeries, type TDbCharts } from '@clusterscope/schema';
import { createWriter, type TWriter } from '@clusterscope/tsdb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TCaller } from '../tenancy/caller';
import { getChartsView, getClusterView } from '../reads/dashboard';
import { ingestPrepared } from '../ingest/ingest';
import { holdInProcess } from '../ingest/ingest-pool';
import { headOf } from '../ingest/ingest-prep';
import { createSeriesCache } from '../reads/series-cache';
import { useTestEnv } from '../core/test-env';

const FIXTURE = path.resolve(
  import.meta.dirname,
  '../../../../apps/agent/src/inputs/prometheus/fixtures/v25.3-status-vars-tenant.txt',
);

interface TVar {
  name: string;
  type: string;
  labels: Record<string, string>;
  value: number;
}

/** The fixture's series (its "..." elision lines and comments skipped), typed by their `# TYPE` lines. */
function readFixture(): TVar[] {
  const types = new Map<string, string>();
  const out: TVar[] = [];
  for (const line of fs.readFileSync(FIXTURE, 'utf8').split('\n')) {
    const t = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (t) types.set(t[1], t[2]);
    const m = /^(\w+)\{([^}]*)\} (\S+)$/.exec(line);
    if (!m) continue;
    const labels = Object.fromEntries([...m[2].matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    out.push({ name: m[1], type: types.get(m[1]) ?? 'untyped', labels, value: Number(m[3]) });
  }
  return out;
}

/** Per-second increases of the scrapes after the recorded one: the app tenant inserts 10/s, system 2/s. */
const RATES: Record<string, Record<string, number>> = {
  sql_insert_count: { demoapp: 10, system: 2 },
  sql_select_count: { demoapp: 3 },
};

// With the series cache the app runs with: a cached answer for one tenant choice must not serve another.
const env = useTestEnv(() => ({ series: createSeriesCache({ maxBytes: 16 << 20 }) }));
let writer: TWriter;
let caller: TCaller;
let orgId: string;
const STEP = 30_000;
const t0 = Math.floor((Date.now() - 10 * 60_000) / STEP) * STEP;
const SCRAPES = 8;
let tenantCluster: string;
let oldCluster: string;

/** Ingests the scrapes of node 1 every 30 s from t0: the fixture's counters plus RATES × elapsed seconds. */
async function ingestScrapes(clusterId: string, keepTenant: boolean) {
  const vars = readFixture();
  const token: TCaller = {
    kind: 'token',
    tokenId: 't',
    orgId,
    orgSlug: 'acme',
    scopes: ['ingest'],
    clusterId,
  };
  for (let k = 0; k < SCRAPES; k++) {
    const ts = t0 + k * STEP + 1000;
    // A scrape without the label has one series per name: the app tenant's.
    const samples = vars
      .filter((v) => keepTenant || v.labels.tenant === 'demoapp')
      .map((v) => {
        const { node_id, ...labels } = v.labels;
        const rate = RATES[v.name]?.[v.labels.tenant] ?? 0;
        if (!keepTenant) delete labels.tenant;
        return {
          kind: 'metric',
          ts,
          node_id: Number(node_id),
          host: 'crdb-n1',
          name: v.name,
          type: v.type,
          labels,
          value: v.value + (rate * (k * STEP)) / 1000,
        };
      });
    const batch = ZIngestBatch.parse({ batchId: `vars-${randomUUID()}`, cluster: clusterId, samples });
    await ingestPrepared(env.deps, token, holdInProcess(headOf(batch), batch.samples), writer);
  }
  await writer.flush();
}

beforeAll(async () => {
  writer = createWriter(env.ch, { maxDelayMs: 0 });
  const user = await env.db.user.create({ data: { id: randomUUID(), name: 'o', email: 'o@app.test' } });
  const org = await env.db.organization.create({ data: { id: randomUUID(), name: 'Acme', slug: 'acme' } });
  orgId = org.id;
  await env.db.member.create({
    data: { id: randomUUID(), organizationId: orgId, userId: user.id, role: 'owner' },
  });
  caller = { kind: 'user', userId: user.id, orgId, orgSlug: 'acme', role: 'owner' };
  const make = async (name: string) =>
    (await env.db.cluster.create({ data: { organizationId: orgId, name, intervalS: 30 } })).id;
  tenantCluster = await make('v25-tenants');
  oldCluster = await make('no-tenant-label');
  await ingestScrapes(tenantCluster, true);
  await ingestScrapes(oldCluster, false);
}, 120_000);

afterAll(async () => {
  await writer?.close();
});

const W = { from: t0, to: t0 + SCRAPES * STEP };
/**
 * The distinct values a line takes (each step's rate is the increase since the scrape before, per second;
 * the packed wire form keeps only the points a chart can tell apart, so steps are not compared one by one).
 */
const at = (db: TDbCharts, key: 'statements' | 'transactions', name: string) => {
  const s: TChartSeries | undefined = db[key].find((x) => x.name === name);
  const vs = [...new Set(s?.data.map((p) => p[1]).filter((v) => v !== null))];
  return vs.length === 1 ? vs[0] : vs;
};
const names = (xs: TChartSeries[]) => xs.map((x) => x.name);

describe('SQL panels per tenant', () => {
  it('stores the tenant label as ingest received it (the recorded counters per tenant)', async () => {
    const rs = await env.ch.client.query({
      query: `SELECT labels['tenant'] AS tenant, value FROM metrics
              WHERE org_id = {org:String} AND cluster_id = {c:String} AND name = 'sql_insert_count'
                AND ts = fromUnixTimestamp64Milli({ts:Int64}, 'UTC')
              ORDER BY tenant`,
      query_params: { org: orgId, c: tenantCluster, ts: t0 + 1000 },
      format: 'JSONEachRow',
    });
    expect(await rs.json()).toEqual([
      { tenant: 'demoapp', value: 15 },
      { tenant: 'system', value: 12 },
    ]);
  });

  it('sums the tenants by default and lists them', async () => {
    const v = await getClusterView(env.deps, caller, { clusterId: tenantCluster, ...W }, W.to);
    const db = v.db!;
    expect(db.tenants).toEqual(['demoapp', 'system']);
    expect(names(db.statements)).toEqual(['select', 'insert', 'update', 'delete']);
    expect(at(db, 'statements', 'insert')).toBe(12);
    expect(at(db, 'statements', 'select')).toBe(3);
  });

  it('splits them: a line per statement type and tenant, 10/s demoapp and 2/s system inserts', async () => {
    const view = await getChartsView(env.deps, caller, { clusterId: tenantCluster, ...W, tenant: '*' });
    const db = unpackDbCharts(view.db);
    expect(names(db.statements)).toEqual([
      'select · demoapp',
      'insert · demoapp',
      'update · demoapp',
      'delete · demoapp',
      'insert · system',
    ]);
    expect(at(db, 'statements', 'insert · demoapp')).toBe(10);
    expect(at(db, 'statements', 'insert · system')).toBe(2);
    expect(at(db, 'statements', 'select · demoapp')).toBe(3);
  });

  it('filters to one tenant, and the cached sum does not answer for it', async () => {
    const sum = unpackDbCharts(
      (await getChartsView(env.deps, caller, { clusterId: tenantCluster, ...W })).db,
    );
    expect(at(sum, 'statements', 'insert')).toBe(12);
    const app = unpackDbCharts(
      (await getChartsView(env.deps, caller, { clusterId: tenantCluster, ...W, tenant: 'demoapp' })).db,
    );
    expect(names(app.statements)).toEqual(['select', 'insert', 'update', 'delete']);
    expect(at(app, 'statements', 'insert')).toBe(10);
    const sys = unpackDbCharts(
      (await getChartsView(env.deps, caller, { clusterId: tenantCluster, ...W, tenant: 'system' })).db,
    );
    expect(names(sys.statements)).toEqual(['insert']);
    expect(at(sys, 'statements', 'insert')).toBe(2);
    // KV panels are the cluster's, whatever the tenant.
    expect(sys.tenants).toEqual(['demoapp', 'system']);
  });

  it('reads scrapes without the label as before: no tenants, a split is the sum, a tenant has no lines', async () => {
    const v = await getClusterView(env.deps, caller, { clusterId: oldCluster, ...W }, W.to);
    expect(v.db!.tenants).toEqual([]);
    expect(at(v.db!, 'statements', 'insert')).toBe(10);
    const split = unpackDbCharts(
      (await getChartsView(env.deps, caller, { clusterId: oldCluster, ...W, tenant: '*' })).db,
    );
    expect(names(split.statements)).toEqual(['select', 'insert', 'update', 'delete']);
    expect(at(split, 'statements', 'insert')).toBe(10);
    const one = unpackDbCharts(
      (await getChartsView(env.deps, caller, { clusterId: oldCluster, ...W, tenant: 'demoapp' })).db,
    );
    expect(one.statements).toEqual([]);
  });
});
