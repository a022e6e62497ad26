/**
 * Issue 38 §4: runs Clusterscope starts on an agent without a git branch (the dashboard's Run, a schedule)
 * have a baseline: the dashboard lane, the earlier such runs of the workload on the same cluster. A CI run
 * on main and a dashboard run on another cluster stay out of it; the run page, the runs list and the report
 * say which baseline it is.
 */
import { readFileSync } from 'node:fs';
import { createCluster, createOrganization, updateAgentHeartbeat, type TDb } from '@clusterscope/db';
import { beforeAll, describe, expect, it } from 'vitest';
import { enrollAgent } from '../jobs/agents';
import type { TCaller } from '../tenancy/caller';
import { getRunPage, findRunRows, toRunListRows } from './compare';
import type { TDeps } from '../core/deps';
import { claimJob, finishJob, postJobOutput } from '../jobs/jobs';
import { getRunReport } from './report';
import { createRun, addRunOutput, finishRun } from './runs';
import { idleHeartbeat, tpcbWorkload, useTestEnv } from '../core/test-env';
import { authenticateToken } from '../tenancy/tokens';
import { createWorkload, startWorkloadRun } from './workloads';

const env = useTestEnv();
let db: TDb;
let deps: TDeps;
let member: TCaller;
let ci: TCaller;
const agents: Record<string, TCaller> = {};
const PGBENCH = readFileSync(new URL('../../../bench/fixtures/pgbench_tpcb.txt', import.meta.url), 'utf8');

/** Starts the workload from the dashboard on `cluster`, runs it on that cluster's agent, returns its id. */
async function runFromDashboard(cluster: string): Promise<string> {
  const { id } = await startWorkloadRun(deps, member, { id: 'tpcb', cluster });
  const agent = `agent-${cluster}`;
  const { job } = await claimJob(deps, agents[cluster]!, { agent, wait: 0, lease: 30 });
  expect(job?.id).toBe(id);
  await postJobOutput(deps, agents[cluster]!, { id, agent, output: PGBENCH });
  await finishJob(deps, agents[cluster]!, { id, agent, status: 'succeeded', exitCode: 0 });
  return id;
}

beforeAll(async () => {
  ({ db, deps } = env);
  const org = await createOrganization(db, { name: 'Acme', slug: 'acme' });
  member = { kind: 'user', userId: 'u2', orgId: org.id, orgSlug: 'acme', role: 'member' };
  ci = { kind: 'token', tokenId: 't1', orgId: org.id, orgSlug: 'acme', clusterId: null, scopes: ['runs:write', 'read'] }; // prettier-ignore
  for (const name of ['pg', 'pg2']) {
    const c = await createCluster(db, org.id, { name });
    const r = await enrollAgent(deps, org.id, { name: `agent-${name}`, cluster: name });
    agents[name] = await authenticateToken(deps, r.token!);
    await updateAgentHeartbeat(db, r.agent.id, idleHeartbeat(['pgbench']));
    expect(c.id).toBeTruthy();
  }
  await createWorkload(deps, member, tpcbWorkload(2));
});

describe('dashboard lane', () => {
  let first: string;
  let second: string;

  it('the first dashboard run has no baseline yet and says it starts the dashboard lane', async () => {
    // A CI run of the same workload on main, and a dashboard run on another cluster: neither is in the lane.
    const { id: mainRun } = await createRun(deps, ci, {
      cluster: 'pg',
      workload: 'tpcb',
      tool: 'pgbench',
      git: { repo: 'acme/db', branch: 'main', sha: 'abc' },
    });
    await addRunOutput(deps, ci, { id: mainRun, output: PGBENCH, tool: 'pgbench' });
    await finishRun(deps, ci, { id: mainRun, status: 'succeeded' });
    await runFromDashboard('pg2');

    first = await runFromDashboard('pg');
    const page = await getRunPage(deps, member, first);
    expect(page.run.gitBranch).toBeNull();
    expect(page.comparison.baseline).toMatchObject({
      kind: 'branch',
      branch: 'dashboard',
      lane: true,
      run_ids: [],
      name: 'dashboard (no earlier runs)',
    });
    const report = await getRunReport(deps, member, first);
    expect(report.baseline_note).toMatch(
      /^No baseline yet: this is the first succeeded run .* \(the dashboard lane\)/,
    );
    // Not the CI warning about passing --branch: a dashboard run has nothing to pass.
    expect(report.warnings.join(' ')).not.toMatch(/--branch/);
  });

  it('the next dashboard run is judged against the earlier one on the same cluster', async () => {
    second = await runFromDashboard('pg');
    const page = await getRunPage(deps, member, second);
    expect(page.comparison.baseline).toMatchObject({
      branch: 'dashboard',
      lane: true,
      run_ids: [first],
      name: 'dashboard (last run)',
    });
    expect(page.comparison.verdicts.length).toBeGreaterThan(0);
    expect(page.comparison.verdict).toBe('noise'); // the same recorded output twice

    const report = await getRunReport(deps, member, second);
    expect(report.baseline_note).toBe(
      'Baseline: dashboard (last run), the latest succeeded runs of this workload that Clusterscope started on this cluster without a git branch (the dashboard lane).',
    );
    expect(report.compare_url).toContain(`baseline=dashboard`);

    // The runs list names the same baseline; the CI run on main keeps its own default (main).
    const rows = await toRunListRows(deps, member, await findRunRows(deps, member, { workload: 'tpcb' }));
    const byId = Object.fromEntries(rows.map((r) => [r.id, r]));
    expect(byId[second]!.baselineName).toBe('dashboard (last run)');
    expect(byId[second]!.verdict).toBe('noise');
    const main = rows.find((r) => r.gitBranch === 'main')!;
    expect(main.baselineName).toBe('main (no earlier runs)');
  });

  it('an explicit dashboard:N ref is the lane too; a CI run without a branch is not in it', async () => {
    const { id: bare } = await createRun(deps, ci, { cluster: 'pg', workload: 'tpcb', tool: 'pgbench' });
    await addRunOutput(deps, ci, { id: bare, output: PGBENCH, tool: 'pgbench' });
    await finishRun(deps, ci, { id: bare, status: 'succeeded' });
    const third = await runFromDashboard('pg');
    const page = await getRunPage(deps, member, third, 'dashboard:5');
    expect(page.comparison.baseline.run_ids).toEqual([second, first]);
    // The CI run without a branch keeps the CI advice.
    const report = await getRunReport(deps, ci, bare);
    expect(report.warnings.join(' ')).toMatch(/pass --branch/);
  });
});
