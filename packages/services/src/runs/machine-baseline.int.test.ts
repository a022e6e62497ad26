import { createCluster, createOrganization, type TDb } from '@clusterscope/db';
import { createRng, drawNormal } from '@clusterscope/bench';
import { getMachineKind, type TMachine } from '@clusterscope/schema';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TCaller } from '../tenancy/caller';
import type { TDeps } from '../core/deps';
import { addRunResults, addRunSamples, createRun, finishRun } from './runs';
import { compareRunIds, compareRunWithBaseline, getRunDetail } from './compare';
import { getRunReport } from './report';
import { useTestEnv } from '../core/test-env';

const env = useTestEnv();
let db: TDb;
let deps: TDeps;
let caller: TCaller;
const HOUR = 3_600_000;
const T0 = Date.now() - 12 * HOUR;
const rng = createRng(40);

const machine = (cpu: string, cores: number, gib: number): TMachine => ({
  cpu_model: cpu,
  cores,
  memory_bytes: gib * 1024 ** 3,
  kernel: '6.8.0',
  os: 'linux/x64',
  cgroup_cpu_cores: null,
  cgroup_memory_bytes: null,
  runner: 'runner-1',
});
const EPYC = machine('AMD EPYC 7763 64-Core Processor', 4, 16);
const XEON = machine('Intel(R) Xeon(R) Platinum 8370C CPU @ 2.80GHz', 2, 8);

async function postRun(o: { hour: number; tps: number; machine?: TMachine; branch?: string }) {
  const { id } = await createRun(deps, caller, {
    cluster: 'prod',
    workload: 'pgbench-tpcb',
    tool: 'pgbench',
    git: { repo: 'acme/db', branch: o.branch ?? 'main', sha: `sha-${o.hour}` },
    startedAt: new Date(T0 + o.hour * HOUR).toISOString(),
    machine: o.machine,
  });
  const samples = Array.from({ length: 30 }, (_, i) => ({
    elapsed_s: i + 1,
    values: { tps: o.tps + 10 * drawNormal(rng) },
  }));
  await addRunSamples(deps, caller, { id, samples });
  const mean = samples.reduce((a, s) => a + s.values.tps, 0) / samples.length;
  await addRunResults(deps, caller, { id, metrics: [{ name: 'tps', value: mean }] });
  await finishRun(deps, caller, { id, status: 'succeeded' });
  return id;
}

const ids: Record<string, string> = {};

beforeAll(async () => {
  ({ db, deps } = env);
  const org = await createOrganization(db, { name: 'Acme', slug: 'acme' });
  await createCluster(db, org.id, { name: 'prod' });
  caller = {
    kind: 'token',
    tokenId: 't1',
    scopes: ['admin'],
    clusterId: null,
    orgId: org.id,
    orgSlug: 'acme',
  };
  // main: two runs on the EPYC box at ~1000 tps, then two newer ones on the smaller Xeon at ~500 tps.
  ids.e1 = await postRun({ hour: 0, tps: 1000, machine: EPYC });
  ids.e2 = await postRun({ hour: 1, tps: 1000, machine: EPYC });
  ids.x1 = await postRun({ hour: 2, tps: 500, machine: XEON });
  ids.x2 = await postRun({ hour: 3, tps: 500, machine: XEON });
});

describe('baselines per machine', () => {
  it('stores the machine and its kind with the run', async () => {
    const run = await db.run.findUniqueOrThrow({ where: { id: ids.e1 } });
    expect(run.machine).toMatchObject({ cpu_model: EPYC.cpu_model, cores: 4 });
    expect(run.machineKind).toBe('AMD EPYC 7763 64-Core Processor, 4 cores, 16 GiB');
    expect(run.machineKind).toBe(getMachineKind(EPYC));
  });

  it('chooses the baseline from runs on the same kind of machine, even when newer runs ran elsewhere', async () => {
    const id = await postRun({ hour: 4, tps: 1000, machine: EPYC, branch: 'feature' });
    const c = await compareRunWithBaseline(deps, caller, id, 'main');
    expect(c.baseline.run_ids).toEqual([ids.e2, ids.e1]);
    expect(c.machine_warning).toBeNull();
    // Against the newest main runs (the Xeon's) the EPYC run would read as a big improvement; it is no change.
    expect(c.verdict).toBe('noise');
    const report = await getRunReport(deps, caller, id, 'main');
    expect(report.warnings.some((w) => w.includes('across machines'))).toBe(false);
  });

  it('falls back to every machine with a warning in the report when none of its kind exists', async () => {
    const arm = machine('Neoverse-N1', 4, 16);
    const id = await postRun({ hour: 5, tps: 500, machine: arm, branch: 'feature-arm' });
    const c = await compareRunWithBaseline(deps, caller, id, 'main');
    expect(c.baseline.run_ids).toEqual([ids.x2, ids.x1, ids.e2]);
    expect(c.machine_warning).toBe(
      'compared across machines: this run ran on Neoverse-N1, 4 cores, 16 GiB, the baseline on ' +
        'Intel(R) Xeon(R) Platinum 8370C CPU @ 2.80GHz, 2 cores, 8 GiB; AMD EPYC 7763 64-Core Processor, 4 cores, 16 GiB ' +
        '(no baseline runs on this kind of machine yet); differences may be the machine, not the change',
    );
    const report = await getRunReport(deps, caller, id, 'main');
    expect(report.warnings).toContain(c.machine_warning);
    expect(report.markdown).toContain(
      '> ⚠️ **Warning:** compared across machines: this run ran on Neoverse-N1',
    );
    expect(report.text).toContain('warning: compared across machines');
  });

  it('a compare of runs on different machines warns on the compare page and in the run-vs-run report', async () => {
    const cmp = await compareRunIds(deps, caller, [ids.e2, ids.x2]);
    expect(cmp.judgements[0].machine_warning).toMatch(
      /^compared across machines: this run ran on Intel\(R\) Xeon.*, the baseline on AMD EPYC/,
    );
    const same = await compareRunIds(deps, caller, [ids.e1, ids.e2]);
    expect(same.judgements[0].machine_warning).toBeNull();
    const report = await getRunReport(deps, caller, ids.x2, ids.e2);
    expect(report.warnings.some((w) => w.startsWith('compared across machines'))).toBe(true);
    // A run without a recorded machine (a plain curl post) is compared as before, without a warning against its like.
    const bare1 = await postRun({ hour: 6, tps: 700, branch: 'bare' });
    const bare2 = await postRun({ hour: 7, tps: 700, branch: 'bare' });
    expect((await compareRunWithBaseline(deps, caller, bare2, 'bare')).baseline.run_ids).toEqual([bare1]);
    expect((await compareRunWithBaseline(deps, caller, bare2, 'bare')).machine_warning).toBeNull();
    expect((await getRunDetail(deps, caller, bare2)).id).toBe(bare2);
  });
});
