import { describe, expect, it } from 'vitest';
import { statLabel } from './stat-label';

describe('statLabel', () => {
  it('names latency percentiles and means', () => {
    expect(statLabel('lat_p95_ms', 'ms')).toBe('p95 ms');
    expect(statLabel('lat_avg_ms', 'ms')).toBe('mean ms');
    expect(statLabel('read_lat_p99_ms', 'ms')).toBe('read p99 ms');
    expect(statLabel('lat_p999_ms', 'ms')).toBe('p99.9 ms');
  });
  it('names throughputs as the mean rate', () => {
    expect(statLabel('tps', 'tx/s')).toBe('mean tps');
    expect(statLabel('ops_per_s', 'ops/s')).toBe('mean ops/s');
    expect(statLabel('read_iops', 'IO/s')).toBe('mean read IOPS');
    expect(statLabel('tpmC', 'tx/min')).toBe('mean tpmC');
  });
  it('keeps other metrics with their unit', () => {
    expect(statLabel('errors', 'count')).toBe('errors count');
  });
});
