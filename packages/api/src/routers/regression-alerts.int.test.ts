/**
 * Regression alert triage through the real REST adapter: PATCH /alerts/{id} sets status, who/when, note and
 * issue link; "invalid" moves the workload's false-alert share; "expected" makes the run the new threshold
 * baseline, so an equal run after it raises no alert (it would without the reset).
 */
import { randomUUID } from 'node:crypto';
import { createOpenApiFetchHandler } from 'trpc-to-openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TDb } from '@clusterscope/db';
import { type TDeps } from '@clusterscope/services/core';
import {
  addRunResults,
  addRunSamples,
  createRun,
  finishRun,
  getWorkloadHistory,
  saveThreshold,
} from '@clusterscope/services/runs';
import { createToken, type TCaller } from '@clusterscope/services/tenancy';
import { openTestDeps } from '../test-deps';
import { appRouter } from '../root';
import type { TContext } from '../trpc';

let db: TDb;
let deps: TDeps;
let token: string;
let close: (() => Promise<void>) | undefined;
let caller: TCaller;
let workloadId: string;
const HOUR = 3_600_000;
const T0 = Date.now() - 24 * HOUR;

async function postRun(hour: number, tps: number) {
  const { id } = await createRun(deps, caller, {
    cluster: 'prod',
    workload: 'pgbench-tpcb',
    tool: 'pgbench',
    git: { repo: 'acme/db', branch: 'main', sha: `sha-${hour}` },
    startedAt: new Date(T0 + hour * HOUR).toISOString(),
  });
  const samples = Array.from({ length: 20 }, (_, i) => ({
    elapsed_s: i + 1,
    values: { tps: tps + (i % 2 ? 3 : -3) },
  }));
  await addRunSamples(deps, caller, { id, samples });
  await addRunResults(deps, caller, { id, metrics: [{ name: 'tps', value: tps }] });
  await finishRun(deps, caller, { id, status: 'succeeded' });
  return id;
}

type TAlertJson = { id: string; runId: string } & Record<string, unknown>;
type TBody = TAlertJson & TAlertJson[];

const rest = async (method: string, path: string, body?: unknown) => {
  const res = await createOpenApiFetchHandler({
    endpoint: '/api/v1',
    req: new Request(`http://127.0.0.1/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
    router: appRouter,
    createContext: (): TContext => ({ deps, userId: null, bearer: token, orgSlug: null }),
  });
  return { status: res.status, body: (await res.json()) as TBody };
};

beforeAll(async () => {
  ({ db, deps, close } = await openTestDeps());
  const orgId = (await db.organization.create({ data: { id: randomUUID(), name: 'A', slug: 'org-a' } })).id;
  await db.cluster.create({ data: { organizationId: orgId, name: 'prod' } });
  const t = await createToken(deps, orgId, { name: 'ci', scopes: ['admin'] });
  token = t.token;
  caller = { kind: 'token', tokenId: 't1', orgId, orgSlug: 'org-a', scopes: ['admin'], clusterId: null };
  await postRun(0, 1000);
  workloadId = (await db.workload.findFirstOrThrow({ where: { organizationId: orgId } })).id;
  await saveThreshold(deps, caller, { workloadId, metric: 'tps', limit: 10, minSamples: 1 });
  await postRun(1, 1002);
  await postRun(2, 998);
}, 120_000);
afterAll(() => close?.());

const alertsOf = async () => (await rest('GET', `/alerts?workloadId=${workloadId}`)).body;

describe('PATCH /alerts/{id}', () => {
  it('triages a false positive as invalid and the false-alert share follows', async () => {
    const slow = await postRun(3, 800);
    const [a] = await alertsOf();
    expect(a).toMatchObject({ runId: slow, status: 'untriaged', triagedAt: null });
    expect((await getWorkloadHistory(deps, caller, workloadId)).precision).toMatchObject({
      total: 1,
      falseAlertShare: 0,
    });

    const res = await rest('PATCH', `/alerts/${a.id}`, {
      status: 'invalid',
      note: 'noisy neighbour on the host',
      issueUrl: 'https://github.com/acme/db/issues/7',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      status: 'invalid',
      triageNote: 'noisy neighbour on the host',
      issueUrl: 'https://github.com/acme/db/issues/7',
      triagedBy: expect.stringMatching(/^token:/),
    });
    expect(typeof res.body.triagedAt).toBe('string');
    const p = (await getWorkloadHistory(deps, caller, workloadId)).precision;
    expect(p).toMatchObject({ total: 1, falseAlertShare: 1 });
    expect(p.byStatus).toMatchObject({ invalid: 1, untriaged: 0 });
  });

  it('answers 4xx naming the field for a bad status or a non-http link, 404 for another id', async () => {
    const [a] = await alertsOf();
    const bad = await rest('PATCH', `/alerts/${a.id}`, { status: 'wontfix' });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toMatch(/status/);
    const js = await rest('PATCH', `/alerts/${a.id}`, { status: 'fixed', issueUrl: 'javascript:alert(1)' });
    expect(js.status).toBe(400);
    expect(JSON.stringify(js.body)).toMatch(/issueUrl/);
    expect((await rest('PATCH', '/alerts/nope', { status: 'fixed' })).status).toBe(404);
  });

  it('"expected" makes the run the new baseline: an equal run after it raises no alert', async () => {
    const slow = await postRun(4, 790);
    const alerts = await alertsOf();
    const fresh = alerts.find((x) => x.runId === slow);
    expect(fresh, 'a second 20 % slower run alerts against the 1000 tps baseline').toBeDefined();
    expect((await rest('PATCH', `/alerts/${fresh!.id}`, { status: 'expected' })).status).toBe(200);
    const h = await getWorkloadHistory(deps, caller, workloadId);
    expect(h.baselineFrom?.getTime()).toBe(T0 + 4 * HOUR);

    const after = await postRun(5, 795);
    expect((await alertsOf()).some((x) => x.runId === after)).toBe(false);
    const band = h.metrics.find((m) => m.metric === 'tps')!.band;
    expect(band?.mean).toBe(790);
  });
});
