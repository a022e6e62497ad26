import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ZHostMetricsSample } from '@clusterscope/schema';
import { readText } from '../../lib/proc';
import { ZHostConfig } from './config';
import { collectHost, parseMeminfo } from './index';

const fx = (n: string) => fileURLToPath(new URL(`./fixtures/${n}`, import.meta.url));

describe('host input', () => {
  it('parses meminfo in bytes, with the old-kernel fallback', () => {
    expect(parseMeminfo(readText(fx('meminfo.txt')))).toEqual({
      total: 8139408 * 1024,
      available: 5021880 * 1024,
    });
    expect(parseMeminfo(readText(fx('meminfo-old-kernel.txt')))).toEqual({
      total: 1024000,
      available: 420 * 1024,
    });
    expect(() => parseMeminfo('Bogus: 1 kB')).toThrow(/MemTotal/);
  });

  it('collects a valid sample and reports unreadable disks', () => {
    const errors: string[] = [];
    const cfg = ZHostConfig.parse({ disks: ['/', '/does/not/exist'], meminfo_path: fx('meminfo.txt') });
    const s = collectHost(cfg, 'db1', null, 1000, (p) => errors.push(p));
    expect(ZHostMetricsSample.parse(s)).toEqual(s);
    expect(s).toMatchObject({
      host: 'db1',
      ts: 1000,
      cpus: os.availableParallelism(),
      mem_total: 8139408 * 1024,
    });
    expect(s.disks).toHaveLength(1);
    expect(s.disks[0].total).toBeGreaterThan(s.disks[0].avail);
    expect(s.disks[0].used).toBeGreaterThan(0);
    expect(errors).toEqual(['/does/not/exist']);
  });

  it('reads the real /proc/meminfo', () => {
    const s = collectHost(ZHostConfig.parse({}), 'h', 1, 1, () => {});
    expect(s.mem_total).toBe(os.totalmem());
  });
});
