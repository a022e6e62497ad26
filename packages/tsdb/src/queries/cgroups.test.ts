import { describe, expect, it } from 'vitest';
import { deriveCgroupRates, type TCgroupCounterRow } from './cgroups';

const row = (ts: number, cu: number, np: number, nt: number, host = 'h'): TCgroupCounterRow => ({
  host, cgroup: '/c', node_id: 0, ts, read_ts: ts, cu, np, nt, tu: 0, quota: 200000, period: 100000,
  mem: 1, mem_max: null, rb: ts, wb: 0, ri: 0, wi: 0,
}); // prettier-ignore

describe('deriveCgroupRates', () => {
  it('derives cores, throttling and byte rates from consecutive readings', () => {
    const pts = deriveCgroupRates([row(0, 0, 0, 0), row(10_000, 15_000_000, 100, 25)]);
    expect(pts[0].cpu_cores).toBeNull();
    expect(pts[1].cpu_cores).toBe(1.5);
    expect(pts[1].throttled_ratio).toBe(0.25);
    expect(pts[1].cpu_limit_cores).toBe(2);
    expect(pts[1].io_read_bps).toBe(1000);
    expect(pts[1].node_id).toBeNull();
  });
  it('gives null after a counter reset and restarts per series', () => {
    const pts = deriveCgroupRates([row(0, 50, 10, 1), row(10_000, 10, 1, 0), row(20_000, 20, 2, 1, 'other')]);
    expect(pts[1].cpu_cores).toBeNull();
    expect(pts[1].throttled_ratio).toBeNull();
    expect(pts[2].cpu_cores).toBeNull();
  });
});
