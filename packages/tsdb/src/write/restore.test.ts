import type { TSample } from '@clusterscope/schema';
import { describe, expect, it } from 'vitest';
import { encodeSamplesToBytes } from '../encode';
import { keyRows, missingLines, storedKey, storedKeyColumns } from './restore';

const T0 = 1_700_000_000_123;
const hb = (ts: number, host: string): TSample => ({
  kind: 'heartbeat',
  ts,
  host,
  version: '1',
  uptime_s: 1,
  capabilities: [],
  outbox_bytes: 0,
  outbox_pending: 0,
  outbox_evictions: 0,
  metrics_dropped: 0,
});
const body = (samples: TSample[]) =>
  encodeSamplesToBytes('org', 'cl', samples, { agent: 'ag' }).bodies.heartbeats!;

describe('row restorer', () => {
  it("keys each line by its table's natural key and spans their times", () => {
    const rows = keyRows('heartbeats', body([hb(T0 + 10_000, 'tab\there'), hb(T0, 'b')]));
    expect(rows.lines).toHaveLength(2);
    expect(rows.keys).toEqual([
      JSON.stringify(['cl', 'ag', 'tab\there', T0 + 10_000]),
      JSON.stringify(['cl', 'ag', 'b', T0]),
    ]);
    expect([rows.from, rows.to]).toEqual([T0, T0 + 10_000]);
  });

  it('reads stored keys in the same form (ts as epoch ms)', () => {
    expect(storedKeyColumns('heartbeats')).toBe(
      'toString(cluster_id), toString(agent), toString(host), toUnixTimestamp64Milli(ts)',
    );
    const [key] = keyRows('heartbeats', body([hb(T0, 'a')])).keys;
    expect(storedKey('heartbeats', ['cl', 'ag', 'a', String(T0)])).toBe(key);
  });

  it('keeps only the lines not stored yet, counting repeats', () => {
    const rows = keyRows('heartbeats', body([hb(T0, 'a'), hb(T0, 'a'), hb(T0, 'b'), hb(T0 + 1, 'c')]));
    const stored = [
      storedKey('heartbeats', ['cl', 'ag', 'a', T0]),
      storedKey('heartbeats', ['cl', 'ag', 'c', T0 + 1]),
    ];
    const missing = missingLines(rows, stored);
    expect(missing).toEqual([`${rows.lines[1]}\n`, `${rows.lines[2]}\n`]);
    expect(missingLines(rows, [])).toHaveLength(4);
  });
});
