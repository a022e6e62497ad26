import { describe, expect, it } from 'vitest';
import {
  CGROUP_VALUES,
  cgroupCols,
  type TCgroupPoint,
  type TCgroupValue,
  type TNodeLatest,
} from '@clusterscope/tsdb';
import { fromCols } from '@clusterscope/schema';
import { toCgroupSeries, toNodeViews } from './dashboard';

const NOW = 1_800_000_000_000;
const cg = (ts: number, node_id: number | null, over: Partial<TCgroupPoint> = {}): TCgroupPoint => ({
  ts, host: `h${node_id ?? 'x'}`, cgroup: '/c', node_id, cpu_cores: 1.23456789, cpu_limit_cores: 4,
  throttled_ratio: 0.1, throttled_s_per_s: 0, mem_current: 5e9, mem_max: 8e9, io_read_bps: 10.55555,
  io_write_bps: 20, io_read_iops: 1, io_write_iops: 2, ...over,
}); // prettier-ignore
const node = (node_id: number, ts: number, over: Partial<TNodeLatest> = {}): TNodeLatest =>
  ({
    cluster_id: 'c', node_id, ts, address: `n${node_id}:26257`, sql_address: '', locality: '', build: 'v24',
    started_at: null, updated_at: null, liveness: 'LIVE', is_live: true, is_available: true, is_draining: false,
    membership: 'active', replicas: 10, replicas_leaders: 3, replicas_leaseholders: 4, ranges: 10,
    ranges_unavailable: 0, ranges_underreplicated: 0, live_bytes: 1, key_bytes: 0, value_bytes: 0,
    intent_bytes: 0, system_bytes: 0, capacity: 100, capacity_available: 50, capacity_used: 50, uptime_s: 60,
    ...over,
  }) as TNodeLatest; // prettier-ignore

describe('toNodeViews', () => {
  it('marks silent nodes STALE and joins the newest cgroup reading with a CPU rate', () => {
    const views = toNodeViews(
      [node(1, NOW - 5_000), node(2, NOW - 60_000, { liveness: 'DRAINING' })],
      [cg(NOW - 20_000, 1), cg(NOW - 10_000, 1, { cpu_cores: 2 }), cg(NOW - 10_000, null)],
      NOW,
      10,
    );
    expect(views.map((v) => v.state)).toEqual(['LIVE', 'STALE']);
    expect(views[0].cgroup).toMatchObject({ cpu_cores: 2, cpu_limit_cores: 4, mem_max: 8e9 });
    expect(views[1].cgroup).toBeNull();
    expect(views[0].leaseholders).toBe(4);
  });
});

describe('toCgroupSeries', () => {
  const ONE = { ...cg(0, 1), io_read_bps_limit: NaN, io_write_bps_limit: NaN } as Record<
    TCgroupValue,
    number
  >;
  /** A block of readings at `ts`, every value as in `cg` unless `over` gives its column. */
  const block = (
    node_id: number | null,
    ts: number[],
    over: Partial<Record<TCgroupValue, number[]>> = {},
  ) => {
    const b = cgroupCols(`h${node_id ?? 'x'}`, '/c', node_id);
    b.t = ts;
    for (const k of CGROUP_VALUES) b[k] = over[k] ?? ts.map(() => ONE[k]);
    return b;
  };
  it('groups per node, keeps values as read (packing rounds once) and keeps only limit changes', () => {
    const n1 = block(1, [0, 10, 20, 30], { mem_max: [8e9, 8e9, 8e9, 16e9] });
    const s = toCgroupSeries([n1, block(2, [0, 10])]);
    expect(s.cpu.map((x) => x.name)).toEqual(['n1', 'n2']);
    expect(fromCols(s.cpu[0])[0]).toEqual([0, 1.23456789]);
    expect(s.io_read[0].v[0]).toBe(10.55555);
    expect(fromCols(s.mem_limit[0])).toEqual([
      [0, 8e9],
      [30, 16e9],
    ]);
    expect(fromCols(s.cpu_limit[0])).toEqual([
      [0, 4],
      [30, 4],
    ]);
  });
  it('joins the blocks of one node into one line, sorted by node id with host-named lines last', () => {
    const s = toCgroupSeries([block(null, [0]), block(3, [20, 30]), block(1, [0]), block(3, [40])]);
    expect(s.mem.map((x) => x.name)).toEqual(['n1', 'n3', 'hx']);
    expect(fromCols(s.mem[1]).map(([t]) => t)).toEqual([20, 30, 40]);
    expect(fromCols(s.cpu_limit[1])).toEqual([
      [20, 4],
      [40, 4],
    ]);
  });
});
