import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openClickHouse, type TTsdb } from './client';
import { migrate } from './migrate';
import { CGROUP_VALUES, type TCgroupCols, type TCgroupPoint } from './queries/cgroups';
import type { TNodeSeries, TNodeSeriesMetric } from './queries/series';
import type { TNodeStatusSample } from '@clusterscope/schema';

/** Test and benchmark helpers (`@clusterscope/tsdb/testing`), kept out of the main entry. */
export * from './bench-data';

/**
 * For *.int.test.ts: chDB in a fresh temp dir, migrated. One per test file (one chDB dir per process);
 * `cleanup()` closes it and removes the directory.
 */
export async function openTempClickHouse(): Promise<{ ch: TTsdb; dir: string; cleanup(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'clusterscope-chdb-'));
  const ch = await openClickHouse({ path: dir });
  await migrate(ch);
  return {
    ch,
    dir,
    async cleanup() {
      await ch.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A node_status sample of a healthy CockroachDB node (10 % of its store used); `over` changes fields, and a
 * liveness other than LIVE also clears is_live/is_available unless `over` sets them.
 */
export function nodeSample(id: number, ts: number, over: Partial<TNodeStatusSample> = {}): TNodeStatusSample {
  const live = (over.liveness ?? 'LIVE') === 'LIVE';
  return {
    kind: 'node_status', ts, node_id: id, address: `n${id}:26257`, sql_address: '', locality: '', build: 'v24',
    started_at: null, updated_at: ts, liveness: 'LIVE', is_live: live, is_available: live, is_draining: false,
    membership: 'active', replicas: 100, replicas_leaders: 30, replicas_leaseholders: 30, ranges: 100,
    ranges_unavailable: 0, ranges_underreplicated: 0, live_bytes: 1e9, key_bytes: 0, value_bytes: 0,
    intent_bytes: 0, system_bytes: 0, capacity: 1e12, capacity_available: 9e11, capacity_used: 1e11, uptime_s: 100,
    ...over,
  }; // prettier-ignore
}

/** A cgroup series read as one point per reading (null for NaN), for assertions. */
export function cgroupPoints(blocks: readonly TCgroupCols[]): TCgroupPoint[] {
  const orNull = (x: number) => (Number.isNaN(x) ? null : x);
  return blocks.flatMap((b) =>
    b.t.map((ts, i) => {
      const p = { ts, host: b.host, cgroup: b.cgroup, node_id: b.node_id } as TCgroupPoint;
      for (const k of CGROUP_VALUES) (p as unknown as Record<string, number | null>)[k] = orNull(b[k][i]);
      p.mem_current = b.mem_current[i];
      return p;
    }),
  );
}

/** A node series read as one point per sample (`values`: null for NaN), for assertions. */
export function nodePoints(s: TNodeSeries) {
  return s.nodes.flatMap((b) => {
    const metrics = Object.keys(b).filter((k) => k !== 'node_id' && k !== 't') as TNodeSeriesMetric[];
    return b.t.map((ts, i) => ({
      ts,
      node_id: b.node_id,
      values: Object.fromEntries(metrics.map((m) => [m, Number.isNaN(b[m]![i]) ? null : b[m]![i]])),
    }));
  });
}
