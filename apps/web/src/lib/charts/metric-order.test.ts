import { describe, expect, it } from 'vitest';
import { DEFAULT_SHOWN, orderMetrics, pickShown } from './metric-order';

const names = [
  'write.lat_max_ms', 'read.lat_p99_ms', 'lat_avg_ms', 'errors', 'tps', 'read.iops_min', 'read_iops',
  'lat_p95_ms', 'write_bw_kib_s', 'conn_time_ms', 'zeta',
]; // prettier-ignore

describe('metric order and picker', () => {
  it('puts key metrics first: throughput, p95/p99 latency, avg/p50, errors, then the rest by name', () => {
    expect(orderMetrics(names)).toEqual([
      'tps', 'read_iops', 'write_bw_kib_s', 'lat_p95_ms', 'read.lat_p99_ms', 'lat_avg_ms', 'errors',
      'conn_time_ms', 'read.iops_min', 'write.lat_max_ms', 'zeta',
    ]); // prettier-ignore
  });
  it('shows the first few by default and the URL choice otherwise', () => {
    expect(pickShown(names, null)).toHaveLength(DEFAULT_SHOWN);
    expect(pickShown(names, null)[0]).toBe('tps');
    expect(pickShown(names, 'zeta,tps,unknown')).toEqual(['tps', 'zeta']);
    expect(pickShown(names, 'unknown')).toHaveLength(DEFAULT_SHOWN);
    expect(pickShown(names, '')).toEqual([]);
  });
});
