import { describe, expect, it } from 'vitest';
import { ratesOf, type TCgroupDeltas } from './cgroups';

const d = (over: Partial<TCgroupDeltas>): TCgroupDeltas => ({
  dt_ms: 10_000, cu: 0, np: 0, nt: 0, tu: 0, rb: 0, wb: 0, ri: 0, wi: 0, ...over,
}); // prettier-ignore

describe('ratesOf', () => {
  it('derives cores, throttling and byte rates from counter differences', () => {
    const r = ratesOf(d({ cu: 15_000_000, np: 100, nt: 25, tu: 500_000, rb: 10_000, wi: 50 }));
    expect(r).toEqual({
      cpu_cores: 1.5,
      throttled_ratio: 0.25,
      throttled_s_per_s: 0.05,
      io_read_bps: 1000,
      io_write_bps: 0,
      io_read_iops: 0,
      io_write_iops: 5,
    });
  });
  it('gives null without a previous reading, after a reset, or when time did not advance', () => {
    const first = ratesOf(d({ dt_ms: null, cu: null, np: null, nt: null, tu: null, rb: null }));
    expect([first.cpu_cores, first.throttled_ratio, first.io_read_bps]).toEqual([null, null, null]);
    const reset = ratesOf(d({ cu: null, np: -9, nt: -1 }));
    expect([reset.cpu_cores, reset.throttled_ratio, reset.io_read_bps]).toEqual([null, null, 0]);
    const still = ratesOf(d({ dt_ms: 0, cu: 5, np: 10, nt: 1 }));
    expect([still.cpu_cores, still.throttled_ratio]).toEqual([null, 0.1]);
  });
});
