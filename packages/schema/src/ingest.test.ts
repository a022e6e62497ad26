import { describe, expect, it } from 'vitest';
import { ZIngestBatch } from './ingest';

const node = {
  kind: 'node_status',
  ts: 1_795_000_000_000,
  node_id: 1,
  address: 'n1:26257',
  liveness: 'LIVE',
  is_live: true,
  is_available: true,
  replicas: 10,
  replicas_leaders: 3,
  replicas_leaseholders: 3,
  ranges: 10,
  ranges_unavailable: 0,
  ranges_underreplicated: 0,
  live_bytes: 1,
  key_bytes: 1,
  value_bytes: 1,
  intent_bytes: 0,
  system_bytes: 0,
  capacity: 100,
  capacity_available: 50,
  capacity_used: 50,
};
const paths = (samples: unknown[]) => {
  const r = ZIngestBatch.safeParse({ batchId: 'batch-0001', samples });
  return r.success ? [] : [...new Set(r.error.issues.map((i) => i.path.join('.')))];
};

describe('ingest bounds follow the ClickHouse column types', () => {
  it('accepts a realistic sample', () => {
    expect(paths([node])).toEqual([]);
  });

  it('rejects values a UInt32/UInt64/DateTime64 column cannot hold, naming the field', () => {
    expect(paths([{ ...node, system_bytes: 1.49e151 }])).toEqual(['samples.0.system_bytes']);
    expect(paths([{ ...node, live_bytes: 1.5 }])).toEqual(['samples.0.live_bytes']);
    expect(paths([{ ...node, replicas: 2 ** 32 }])).toEqual(['samples.0.replicas']);
    expect(paths([{ ...node, ts: 1e16 }])).toEqual(['samples.0.ts']);
    expect(paths([{ ...node, node_id: 2 ** 40 }])).toEqual(['samples.0.node_id']);
  });
});

describe('metric samples', () => {
  const metric = {
    kind: 'metric',
    ts: 1_795_000_000_000,
    node_id: 1,
    host: 'db-1',
    name: 'sql_service_latency_bucket',
    type: 'histogram',
    labels: { le: '+Inf', node_id: '1' },
    value: 42,
  };
  it('accepts a Prometheus series and defaults node_id, type and labels', () => {
    expect(paths([metric])).toEqual([]);
    const r = ZIngestBatch.parse({
      batchId: 'batch-0001',
      samples: [{ ...metric, node_id: undefined, type: undefined, labels: undefined }],
    });
    expect(r.samples[0]).toMatchObject({ node_id: null, type: 'untyped', labels: {} });
  });

  it('rejects bad names, label sets and values, naming the field', () => {
    expect(paths([{ ...metric, name: 'sql-select' }])).toEqual(['samples.0.name']);
    expect(paths([{ ...metric, name: '9lives' }])).toEqual(['samples.0.name']);
    expect(paths([{ ...metric, type: 'rate' }])).toEqual(['samples.0.type']);
    expect(paths([{ ...metric, value: Infinity }])).toEqual(['samples.0.value']);
    expect(paths([{ ...metric, labels: { 'bad-name': 'x' } }])[0]).toMatch(/^samples\.0\.labels/);
    expect(paths([{ ...metric, labels: { __name__: 'x' } }])[0]).toMatch(/^samples\.0\.labels/);
    expect(paths([{ ...metric, labels: { a: 'x'.repeat(257) } }])[0]).toMatch(/^samples\.0\.labels/);
    const many = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`l${i}`, 'v']));
    expect(paths([{ ...metric, labels: many }])).toEqual(['samples.0.labels']);
  });

  it('a heartbeat counts dropped series, 0 by default', () => {
    const hb = { kind: 'heartbeat', ts: 1_795_000_000_000, host: 'h', version: '1', uptime_s: 1 };
    expect(ZIngestBatch.parse({ batchId: 'batch-0001', samples: [hb] }).samples[0]).toMatchObject({
      metrics_dropped: 0,
    });
    expect(paths([{ ...hb, metrics_dropped: -1 }])).toEqual(['samples.0.metrics_dropped']);
  });
});
