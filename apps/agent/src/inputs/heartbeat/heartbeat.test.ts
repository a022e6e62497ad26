import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ZHeartbeatSample } from '@clusterscope/schema';
import { silentLogger } from '../../lib/log';
import { ZHeartbeatConfig } from './config';
import { detectTools, findOnPath, heartbeatInput } from './index';
import { tempDir } from '../../../test/temp';

function fakeBin(): string {
  const dir = tempDir('hb');
  mkdirSync(join(dir, 'bin'));
  mkdirSync(join(dir, 'opt'));
  writeFileSync(join(dir, 'opt', 'fio-3.33'), '#!/bin/sh\n');
  chmodSync(join(dir, 'opt', 'fio-3.33'), 0o755);
  symlinkSync(join(dir, 'opt', 'fio-3.33'), join(dir, 'bin', 'fio'));
  writeFileSync(join(dir, 'bin', 'wrk'), 'not executable');
  return dir;
}

describe('heartbeat input', () => {
  it('finds executables on PATH (symlinks allowed), skipping non-executables and relative entries', () => {
    const dir = fakeBin();
    const path = `relative/bin:${join(dir, 'bin')}:/nonexistent`;
    expect(findOnPath('fio', path)).toBe(join(dir, 'bin', 'fio'));
    expect(findOnPath('wrk', path)).toBeUndefined();
    expect([...detectTools(['fio', 'wrk', 'hey'], path).keys()]).toEqual(['fio']);
  });

  it('reports version, uptime, capabilities and outbox stats', async () => {
    const dir = fakeBin();
    const input = heartbeatInput.create(ZHeartbeatConfig.parse({}), {
      host: 'db1',
      nodeId: null,
      version: '1.2.3',
      startedAt: 10_000,
      logger: silentLogger,
      pathEnv: join(dir, 'bin'),
      outboxStats: () => ({ bytes: 4096, pending: 3, evictions: 7 }),
      counters: { metricsDropped: 12 },
    });
    const [s] = await input.collect(25_000);
    expect(ZHeartbeatSample.parse(s)).toEqual(s);
    expect(s).toEqual({
      kind: 'heartbeat',
      ts: 25_000,
      host: 'db1',
      version: '1.2.3',
      uptime_s: 15,
      capabilities: ['fio'],
      outbox_bytes: 4096,
      outbox_pending: 3,
      outbox_evictions: 7,
      metrics_dropped: 12, // what the prometheus input dropped (shared counter)
    });
    expect((await input.check())[0].detail).toContain('fio=');
  });

  it('finds the Debian-installed tools on this machine', () => {
    expect(detectTools(['sysbench', 'fio'], '/usr/local/bin:/usr/bin:/bin').get('sysbench')).toMatch(
      /^\/.*sysbench$/,
    );
  });

  it('rejects tool names with slashes', () => {
    expect(() => ZHeartbeatConfig.parse({ tools: ['../x'] })).toThrow(/without slashes/);
  });
});
