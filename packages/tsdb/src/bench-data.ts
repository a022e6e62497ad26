import { toClient, type TClickHouse } from './client';

export interface TBenchDataOptions {
  orgId: string;
  clusterId: string;
  nodes?: number;
  days?: number;
  intervalS?: number;
  /** Newest sample time (epoch ms); default now rounded down to the interval. */
  endMs?: number;
  /** Also load one cgroup per node into cgroup_usage. Default true. */
  cgroups?: boolean;
  /** Node whose liveness goes LIVE -> DRAINING -> DEAD -> LIVE once a day (for events). Default 3. */
  flakyNode?: number;
}

export interface TBenchDataResult {
  nodeStatusRows: number;
  cgroupRows: number;
  fromMs: number;
  toMs: number;
  ms: number;
}

/**
 * Bulk-loads synthetic history with INSERT ... SELECT FROM numbers() inside ClickHouse (one INSERT per
 * day, so the materialized views see bounded blocks). 50 nodes x 30 days x 10 s = 12.96M node_status rows.
 */
export async function loadBenchData(ch: TClickHouse, opts: TBenchDataOptions): Promise<TBenchDataResult> {
  const client = toClient(ch);
  const nodes = opts.nodes ?? 50;
  const days = opts.days ?? 30;
  const intervalS = opts.intervalS ?? 10;
  const stepMs = intervalS * 1000;
  const endMs = opts.endMs ?? Math.floor(Date.now() / stepMs) * stepMs;
  const perDay = Math.floor(86_400 / intervalS);
  const steps = perDay * days;
  const startMs = endMs - (steps - 1) * stepMs;
  const flaky = opts.flakyNode ?? 3;
  const t0 = performance.now();
  const base = {
    org_id: opts.orgId,
    cluster_id: opts.clusterId,
    nodes,
    start_ms: startMs,
    step_ms: stepMs,
    per_day: perDay,
    flaky,
  };
  for (let day = 0; day < days; day++) {
    const params = { ...base, first_step: day * perDay, count: perDay * nodes };
    // n -> (step, node): node varies fastest. The flaky node drains, dies and returns each day.
    const src = `FROM (SELECT number AS n, {first_step:UInt64} + intDiv(n, {nodes:UInt32}) AS step,
                   toUInt32(n % {nodes:UInt32} + 1) AS node, step % {per_day:UInt64} AS sod
                 FROM numbers({count:UInt64}))`;
    const phase = `multiIf(node = {flaky:UInt32} AND sod BETWEEN 3000 AND 3029, 'DRAINING',
                           node = {flaky:UInt32} AND sod BETWEEN 3030 AND 3089, 'DEAD', 'LIVE')`;
    await client.command({
      query: `INSERT INTO node_status (org_id, cluster_id, node_id, ts, address, sql_address, locality, build,
                started_at, updated_at, liveness, is_live, is_available, is_draining, membership, replicas,
                replicas_leaders, replicas_leaseholders, ranges, ranges_unavailable, ranges_underreplicated,
                live_bytes, key_bytes, value_bytes, intent_bytes, system_bytes, capacity, capacity_available,
                capacity_used, uptime_s)
              SELECT {org_id:String}, {cluster_id:String}, node,
                fromUnixTimestamp64Milli(toInt64({start_ms:Int64} + step * {step_ms:Int64}), 'UTC') AS ts,
                concat('node', toString(node), ':26257'), concat('node', toString(node), ':26257'),
                concat('region=r', toString(node % 3), ',zone=z', toString(node % 9)), 'v24.1.0',
                fromUnixTimestamp64Milli(toInt64({start_ms:Int64}), 'UTC'), ts,
                ${phase} AS lv, lv != 'DEAD', lv = 'LIVE', lv = 'DRAINING', 'active',
                toUInt32(1000 + node * 10 + step % 50), toUInt32(300 + step % 20), toUInt32(310 + step % 20),
                toUInt32(1000 + node * 10), toUInt32(if(lv = 'DEAD', 3, 0)), toUInt32(if(lv != 'LIVE', 40, 0)),
                toUInt64(5e10 + step * 1000), toUInt64(1e10), toUInt64(4e10), toUInt64(0), toUInt64(1e8),
                toUInt64(1e12), toUInt64(1e12 - 6e10 - step * 1000), toUInt64(6e10 + step * 1000),
                toFloat64(step * {step_ms:Int64} / 1000)
              ${src}`,
      query_params: params,
    });
    if (opts.cgroups ?? true) {
      await client.command({
        query: `INSERT INTO cgroup_usage (org_id, cluster_id, host, node_id, cgroup, ts, version, cpu_usage_usec,
                  cpu_nr_periods, cpu_nr_throttled, cpu_throttled_usec, cpu_quota_usec, cpu_period_usec, cpu_weight,
                  cpu_shares, mem_current, mem_max, mem_swap_current, mem_swap_max, mem_anon, mem_file, io_device,
                  io_rbytes, io_wbytes, io_rios, io_wios, io_rbps_max, io_wbps_max, io_riops_max, io_wiops_max)
                SELECT {org_id:String}, {cluster_id:String}, concat('host', toString(node)), node,
                  '/system.slice/cockroach.service',
                  fromUnixTimestamp64Milli(toInt64({start_ms:Int64} + step * {step_ms:Int64}), 'UTC'), 2,
                  toUInt64(step * {step_ms:Int64} * 1500), toUInt64(step * {step_ms:Int64} / 100),
                  toUInt64(step * {step_ms:Int64} / 2000), toUInt64(step * {step_ms:Int64} * 20), 400000, 100000,
                  100, NULL, toUInt64(6e9 + (step % 360) * 1e7), toUInt64(8e9), 0, NULL, toUInt64(5e9), toUInt64(1e9),
                  ['8:0'], [toUInt64(step * 4096 * 50)], [toUInt64(step * 4096 * 200)], [step * 50], [step * 200],
                  [NULL], [NULL], [NULL], [NULL]
                ${src}`,
        query_params: params,
      });
    }
  }
  return {
    nodeStatusRows: steps * nodes,
    cgroupRows: (opts.cgroups ?? true) ? steps * nodes : 0,
    fromMs: startMs,
    toMs: endMs,
    ms: Math.round(performance.now() - t0),
  };
}
