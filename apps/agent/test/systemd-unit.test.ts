/** The shipped systemd files pass `systemd-analyze verify`; the drop-in opens the jobs' directories. */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ZAgentConfig } from '../src/config';
import { systemdDropin } from '../src/systemd';
import { tempDir } from './temp';

const deploy = (f: string) => new URL(`../deploy/${f}`, import.meta.url).pathname;
const hasAnalyze = spawnSync('systemd-analyze', ['--version']).status === 0;

const config = (jobs: Record<string, unknown>) =>
  ZAgentConfig.parse({ url: 'http://cs.test', token: 't', jobs });

describe('systemd drop-in', () => {
  it('lists work_dir and allowed_dirs outside the state directory', () => {
    const d = systemdDropin(
      config({
        enabled: true,
        work_dir: '/mnt/data/bench',
        allowed_dirs: ['/mnt/data/bench', '/srv/fio dir'],
      }),
    );
    expect(d).toContain('[Service]\nReadWritePaths=/mnt/data/bench "/srv/fio dir"\n');
    expect(systemdDropin(config({ enabled: false, allowed_dirs: ['/x'] }))).not.toContain('ReadWritePaths=');
  });
});

// Debian's systemd package ships systemd-analyze (e2e/ensure-system.sh installs it); without it there is
// nothing to run the check with.
describe.runIf(hasAnalyze)('systemd-analyze verify', () => {
  it('accepts the unit with its drop-in, and the jobs slice', () => {
    const dir = tempDir('cs-unit');
    const unit = readFileSync(deploy('clusterscope-agent.service'), 'utf8');
    const dropin = systemdDropin(config({ enabled: true, allowed_dirs: ['/mnt/data/bench'] }));
    // verify reads drop-ins only from system paths: check the unit with the drop-in's lines merged in.
    writeFileSync(join(dir, 'clusterscope-agent.service'), `${unit}\n${dropin}`);
    copyFileSync(deploy('clusterscope-jobs.slice'), join(dir, 'clusterscope-jobs.slice'));
    const out = execFileSync(
      'systemd-analyze',
      ['verify', join(dir, 'clusterscope-agent.service'), join(dir, 'clusterscope-jobs.slice')],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    );
    expect(out).toBe('');
  });

  it('flags a broken unit (the check can fail)', () => {
    const dir = tempDir('cs-unit-bad');
    writeFileSync(join(dir, 'bad.service'), '[Service]\nExecStart=relative/path\nCPUQuota=lots\n');
    const r = spawnSync('systemd-analyze', ['verify', join(dir, 'bad.service')], { encoding: 'utf8' });
    expect(r.status).not.toBe(0);
    expect(`${r.stdout}${r.stderr}`).toMatch(/bad unit file setting/);
  });
});
