/**
 * Workload credentials at rest and in every read path (embedded PostgreSQL + chDB): the table never holds
 * the password, every DTO/export/audit row shows it as ***, only the claimed job carries it; start-up
 * backfill and key rotation. Plus job confinement: a run the cluster's agents do not allow gets 422.
 */
import {
  createCluster,
  createOrganization,
  insertWorkload,
  listAudit,
  upsertLegacyAgentHeartbeat,
  type TDb,
} from '@clusterscope/db';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TCaller } from '../tenancy/caller';
import type { TDeps } from './deps';
import { enrollAgent } from '../jobs/agents';
import { exportRuns } from '../runs/export';
import { claimJob, getRunProgress } from '../jobs/jobs';
import { listRuns, getRun } from '../runs/runs';
import { authenticateToken } from '../tenancy/tokens';
import { generateSecretKey, loadSecretKeys, sealedKeyId } from './secrets';
import {
  createWorkload,
  listWorkloads,
  getWorkload,
  sealWorkloadSecrets,
  startWorkloadRun,
  updateWorkload,
} from '../runs/workloads';
import { errorReason, idleHeartbeat, useTestEnv } from './test-env';

const PASSWORD = 'Pl41n-t3xt-pw';
const TARGET = `postgresql://bench:${PASSWORD}@127.0.0.1:5432/bench`;
const KEY_A = generateSecretKey();
const KEY_B = generateSecretKey();

const env = useTestEnv(() => ({ secrets: loadSecretKeys(KEY_A) }));
let db: TDb;
let deps: TDeps;
let orgId: string;
let clusterId: string;
let admin: TCaller;
let agentTok: TCaller;

async function rawRow(id: string): Promise<string> {
  const rows = await db.$queryRawUnsafe<{ j: string }[]>(
    'SELECT row_to_json(w)::text AS j FROM "Workload" w WHERE id = $1',
    id,
  );
  return rows[0]!.j;
}

async function heartbeat(name: string, capabilities: string[], jobLimits?: unknown) {
  await upsertLegacyAgentHeartbeat(db, orgId, {
    name,
    clusterId,
    ...idleHeartbeat(capabilities),
    jobLimits: jobLimits as never,
  });
}

beforeAll(async () => {
  ({ db, deps } = env);
  const org = await createOrganization(db, { name: 'Acme', slug: 'acme' });
  orgId = org.id;
  clusterId = (await createCluster(db, org.id, { name: 'pg' })).id;
  await createCluster(db, org.id, { name: 'web' });
  admin = { kind: 'user', orgId, orgSlug: 'acme', userId: 'u1', role: 'admin' };
  await heartbeat('db1', ['pgbench']);
  // Agent job routes take only the agent's own credential.
  const enrolled = await enrollAgent(deps, orgId, { name: 'db1', cluster: 'pg' });
  agentTok = await authenticateToken(deps, enrolled.token!);
});

describe('workload credentials', () => {
  it('are sealed in the table, redacted on every read path, and only the claimed job carries them', async () => {
    const w = await createWorkload(deps, admin, { name: 'tpcb', tool: 'pgbench', target: TARGET });
    expect(w.target).toBe('postgresql://bench:***@127.0.0.1:5432/bench');
    const row = await rawRow(w.id);
    expect(row).not.toContain(PASSWORD);
    expect(row).toMatch(/"targetSecret":"v1\./);

    const run = await startWorkloadRun(deps, admin, { id: 'tpcb', cluster: 'pg' });
    const reads = [
      await getWorkload(deps, admin, 'tpcb'),
      await listWorkloads(deps, admin),
      await getRun(deps, admin, run.id),
      await listRuns(deps, admin, { limit: 50 } as never),
      await getRunProgress(deps, admin, run.id),
      (await exportRuns(deps, admin, {}, 'json')).body,
      (await exportRuns(deps, admin, {}, 'csv')).body,
      await listAudit(db, orgId, { limit: 100 }),
    ];
    for (const r of reads) expect(JSON.stringify(r)).not.toContain(PASSWORD);

    const { job } = await claimJob(deps, agentTok, { agent: 'db1', wait: 0, lease: 10 });
    expect(job?.target).toBe(TARGET);
    expect(JSON.stringify(await listAudit(db, orgId, { limit: 100 }))).not.toContain(PASSWORD);
  });

  it('an edit that sends the redacted target back keeps the credential; a new target is sealed anew', async () => {
    const w = await updateWorkload(deps, admin, {
      id: 'tpcb',
      target: 'postgresql://bench:***@127.0.0.1:5432/bench',
      params: { clients: 2 },
    });
    expect(w.version).toBe(2);
    await startWorkloadRun(deps, admin, { id: 'tpcb', cluster: 'pg' });
    expect((await claimJob(deps, agentTok, { agent: 'db1', wait: 0, lease: 10 })).job?.target).toBe(TARGET);
    await updateWorkload(deps, admin, { id: 'tpcb', target: 'postgresql://bench@127.0.0.1:5432/bench' });
    expect(await rawRow(w.id)).toContain('"targetSecret":null');
  });

  it('start-up backfill seals rows stored in clear text; rotation re-seals under the new key', async () => {
    // A row as written before encryption existed.
    const legacy = await insertWorkload(db, orgId, {
      name: 'legacy',
      tool: 'pgbench',
      params: {},
      target: TARGET,
      durationS: 5,
      warmupS: 0,
      description: '',
    });
    expect(await rawRow(legacy.id)).toContain(PASSWORD);
    expect(await sealWorkloadSecrets(deps)).toMatchObject({ sealed: 1, rotated: 0, failed: [] });
    const sealedRow = await rawRow(legacy.id);
    expect(sealedRow).not.toContain(PASSWORD);
    expect((await getWorkload(deps, admin, 'legacy')).target).toContain(':***@');

    // Rotate: B is current, A still opens; afterwards B alone suffices.
    const rotated = { ...deps, secrets: loadSecretKeys(KEY_B, KEY_A) };
    const r = await sealWorkloadSecrets(rotated, { rotate: true });
    expect(r).toMatchObject({ sealed: 0, rotated: 1, failed: [] }); // 'tpcb' no longer has a secret
    const secret = JSON.parse(await rawRow(legacy.id)).targetSecret as string;
    expect(sealedKeyId(secret)).toBe(loadSecretKeys(KEY_B).current.id);
    const onlyB = { ...deps, secrets: loadSecretKeys(KEY_B) };
    await startWorkloadRun(onlyB, admin, { id: 'legacy', cluster: 'pg' });
    expect((await claimJob(onlyB, agentTok, { agent: 'db1', wait: 0, lease: 10 })).job?.target).toBe(TARGET);
  });
});

describe('job confinement (server side)', () => {
  const limits = { allowedDirs: ['/var/lib/cs/jobs'], allowedHosts: ['10.0.0.0/24', 'db.internal'], maxFileBytes: 1024 ** 3 }; // prettier-ignore

  beforeAll(async () => {
    await heartbeat('web1', ['hey', 'wrk', 'fio', 'sysbench'], limits);
  });

  it('422 for a link-local/metadata host, a host not listed, a dir outside, a file over the cap', async () => {
    const cases: [string, Record<string, unknown>, RegExp][] = [
      [ 'meta', { tool: 'hey', target: 'http://169.254.169.254/latest/meta-data/' }, /link-local or metadata/ ],
      [ 'meta6', { tool: 'hey', target: 'http://[::ffff:169.254.169.254]/' }, /link-local or metadata/ ],
      [ 'gce', { tool: 'wrk', target: 'http://metadata.google.internal/' }, /link-local or metadata|not in/ ],
      [ 'far', { tool: 'hey', target: 'http://evil.example/' }, /evil\.example is not in the agent's jobs\.allowed_hosts/ ],
      [ 'hex', { tool: 'hey', target: 'http://0xa9.0xfe.0xa9.0xfe/' }, /169\.254\.169\.254/ ],
      [ 'etc', { tool: 'fio', target: '/etc' }, /\/etc is outside the agent's jobs\.allowed_dirs/ ],
      [ 'big', { tool: 'fio', params: { size: '600M', numjobs: 2 } }, /more than the agent's jobs\.max_file_bytes/ ],
      [ 'sysdef', { tool: 'sysbench', params: { test: 'fileio', fileTestMode: 'seqwr' } }, /2 GiB, more than/ ],
    ]; // prettier-ignore
    for (const [name, w, re] of cases) {
      await createWorkload(deps, admin, { name, params: {}, ...w } as never);
      const r = await errorReason(startWorkloadRun(deps, admin, { id: name, cluster: 'pg' }));
      expect(r, name).toMatch(/^UNPROCESSABLE_CONTENT: target: no agent of this cluster allows this run/);
      expect(r, name).toMatch(re);
    }
  });

  it('a run inside the limits is queued (for an agent that allows it)', async () => {
    for (const [name, w] of [
      ['ok-http', { tool: 'hey', target: 'http://10.0.0.7:8080/' }],
      ['ok-name', { tool: 'hey', target: 'http://DB.internal./x' }],
      ['ok-dir', { tool: 'fio', target: '/var/lib/cs/jobs/fio', params: { size: '512M', numjobs: 2 } }],
    ] as const) {
      await createWorkload(deps, admin, { name, params: {}, ...w } as never);
      expect(await errorReason(startWorkloadRun(deps, admin, { id: name, cluster: 'pg' })), name).toBe('ok');
    }
  });
});
