import { mkdirSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { hostRefusal, type TTool } from '@clusterscope/schema';
import { afterAll, describe, expect, it } from 'vitest';
import { buildPlan, JobError, type TJobSpec } from './argv';
import { resolveJobsConfig, ZJobsConfig } from './config';
import { confineDir } from './confine';
import { tempDir } from '../../test/temp';

const root = realpathSync(tempDir('cs-confine'));
const work = join(root, 'jobs');
const limits = { allowedDirs: [work], allowedHosts: ['10.0.0.0/24', 'db.internal'], maxFileBytes: 1024 ** 3 };
const opts = { secrets: { meta: 'http://169.254.169.254/' }, workDir: work, limits, secretDir: `${work}/.s` };
const job = (tool: TTool, params: Record<string, unknown>, target: string): TJobSpec => ({
  id: 'r1',
  tool,
  params,
  target,
  durationS: 5,
  warmupS: 0,
});
const refused = (j: TJobSpec) => {
  try {
    buildPlan(j, opts);
    return 'built';
  } catch (e) {
    return e instanceof JobError ? e.message : `thrown: ${String(e)}`;
  }
};

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('job confinement on the agent', () => {
  it('file-writing tools stay inside jobs.allowed_dirs (no absolute dir elsewhere, no .. escape)', () => {
    expect(refused(job('fio', {}, '/etc'))).toMatch(/\/etc is outside the agent's jobs\.allowed_dirs/);
    expect(refused(job('fio', {}, `${work}/../../etc`))).toMatch(/without '\.\.'/);
    expect(refused(job('sysbench', { test: 'fileio', fileTestMode: 'seqwr', fileTotalSize: '1M' }, '/var/tmp'))).toMatch(/outside/); // prettier-ignore
    expect(refused(job('fio', {}, `${work}-evil`))).toMatch(/outside/);
    expect(refused(job('fio', {}, `${work}/sub`))).toBe('built');
    expect(refused(job('fio', {}, ''))).toBe('built');
  });

  it('size caps: fio size × numjobs and sysbench --file-total-size (default 2G) at most max_file_bytes', () => {
    expect(refused(job('fio', { size: '600M', numjobs: 2 }, ''))).toMatch(/1\.17 GiB, more than .*max_file_bytes \(1 GiB\)/);
    expect(refused(job('fio', { size: '512M', numjobs: 2 }, ''))).toBe('built');
    expect(refused(job('sysbench', { test: 'fileio', fileTestMode: 'seqwr' }, ''))).toMatch(/2 GiB, more than/);
    const plan = buildPlan(job('sysbench', { test: 'fileio', fileTestMode: 'seqwr', fileTotalSize: '64M' }, ''), opts);
    expect(plan.steps.every((s) => s.argv.includes('--file-total-size=64M'))).toBe(true);
  }); // prettier-ignore

  it('network tools and database targets reach only jobs.allowed_hosts; never link-local or metadata', () => {
    const hosts = [
      'http://169.254.169.254/latest/meta-data/',
      'http://[fe80::1]/',
      'http://[::ffff:169.254.169.254]/',
      'http://0xa9fea9fe/',
      'http://169.254.169.254.:80/',
      'http://metadata.google.internal/computeMetadata/v1/',
      'http://evil.example/',
      'http://10.0.1.1/',
    ];
    for (const t of hosts)
      expect(refused(job('hey', {}, t)), t).toMatch(/refused by this agent's job limits/);
    for (const t of hosts.slice(0, 2))
      expect(refused(job('wrk', {}, t)), t).toMatch(/link-local or metadata/);
    expect(refused(job('pgbench', {}, 'postgresql://u:p@169.254.169.254/db'))).toMatch(/link-local/);
    expect(refused(job('cockroach-workload', { workload: 'kv' }, 'postgresql://root@evil.example:26257'))).toMatch(/not in/); // prettier-ignore
    expect(refused(job('hey', {}, 'secret:meta'))).toMatch(/link-local/);
    expect(refused(job('hey', {}, 'http://10.0.0.9:8080/'))).toBe('built');
    expect(refused(job('wrk', {}, 'http://DB.Internal/x'))).toBe('built');
  });

  it('link-local and metadata addresses pass only when listed by themselves, never through * or a wide CIDR', () => {
    expect(hostRefusal('169.254.169.254', ['*', '0.0.0.0/0', '::/0'])).toMatch(/link-local or metadata/);
    expect(hostRefusal('metadata.google.internal', ['*'])).toMatch(/link-local or metadata/);
    expect(hostRefusal('evil.example', ['*'])).toBeNull();
    expect(hostRefusal('169.254.169.254', ['169.254.169.254'])).toBeNull();
    expect(hostRefusal('169.254.10.1', ['169.254.0.0/16'])).toBeNull();
    expect(hostRefusal('fe80::1', ['fe80::/10'])).toBeNull();
    expect(hostRefusal('metadata.google.internal', ['metadata.google.internal'])).toBeNull();
  });

  it('a symlink inside an allowed dir that leads out is refused (realpath), before anything is created', () => {
    mkdirSync(work, { recursive: true });
    const outside = join(root, 'outside');
    mkdirSync(outside);
    symlinkSync(outside, join(work, 'link'));
    expect(() => confineDir(join(work, 'link'), [work])).toThrow(/resolves outside jobs\.allowed_dirs/);
    expect(() => confineDir(join(work, 'link/deeper'), [work])).toThrow(JobError);
    expect(() => realpathSync(join(outside, 'deeper'))).toThrow(); // not created
    expect(confineDir(join(work, 'fio/a'), [work])).toBe(join(work, 'fio/a'));
    // An allowed dir that is itself a symlink is followed.
    symlinkSync(work, join(root, 'alias'));
    expect(confineDir(join(root, 'alias/x'), [join(root, 'alias')])).toBe(join(work, 'x'));
  });

  it('defaults: work dir under the state dir, allowed_dirs = [work_dir], hosts of the cockroachdb input', () => {
    const s = resolveJobsConfig({
      jobs: ZJobsConfig.parse({ enabled: true }),
      outbox: { dir: '/var/lib/clusterscope-agent/outbox' },
      inputs: { cockroachdb: { urls: ['http://10.0.0.5:8080', 'https://[fd00::5]:8080'] } },
    });
    expect(s.work_dir).toBe('/var/lib/clusterscope-agent/jobs');
    expect(s.allowed_dirs).toEqual(['/var/lib/clusterscope-agent/jobs']);
    expect(s.allowed_hosts).toEqual(['10.0.0.5', 'fd00::5']);
    expect(s.max_file_bytes).toBe(2 * 1024 ** 3);
    expect(resolveJobsConfig({ jobs: ZJobsConfig.parse({}), outbox: { dir: '/x/outbox' }, inputs: {} }).allowed_hosts).toEqual([]); // prettier-ignore
  });
});
