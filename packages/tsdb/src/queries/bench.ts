import type { TDirection } from '@clusterscope/schema';
import { toClient, type TClickHouse } from '../client';
import { formatTs } from '../encode';
import { selectRows, toNum } from './util';

export interface TBenchSampleRow {
  run_id: string;
  ts: number;
  elapsed_s: number;
  metric: string;
  value: number;
}

/** Interval samples of runs, ordered by run, metric and elapsed time. */
export async function getBenchSamples(
  ch: TClickHouse,
  orgId: string,
  runIds: readonly string[],
  opts: { metrics?: readonly string[] } = {},
): Promise<TBenchSampleRow[]> {
  if (runIds.length === 0) return [];
  const params: Record<string, unknown> = { org_id: orgId, run_ids: [...runIds] };
  let filter = '';
  if (opts.metrics) {
    filter = 'AND metric IN {metrics:Array(String)}';
    params.metrics = [...opts.metrics];
  }
  const rows = await selectRows<Record<string, unknown>>(
    ch,
    `SELECT run_id, toUnixTimestamp64Milli(ts) AS t, elapsed_s, toString(metric) AS metric, value
     FROM bench_samples
     WHERE org_id = {org_id:String} AND run_id IN {run_ids:Array(String)} ${filter}
     ORDER BY run_id, metric, elapsed_s`,
    params,
  );
  return rows.map((r) => ({
    run_id: String(r.run_id),
    ts: toNum(r.t),
    elapsed_s: toNum(r.elapsed_s),
    metric: String(r.metric),
    value: toNum(r.value),
  }));
}

export interface TBenchResult {
  metric: string;
  value: number;
  unit: string;
  direction: TDirection;
}

export interface TBenchResultRow extends TBenchResult {
  run_id: string;
  ts: number;
}

/** Summary results of runs (latest value per run and metric). */
export async function getBenchResults(
  ch: TClickHouse,
  orgId: string,
  runIds: readonly string[],
): Promise<TBenchResultRow[]> {
  if (runIds.length === 0) return [];
  const rows = await selectRows<Record<string, unknown>>(
    ch,
    `SELECT run_id, toString(metric) AS metric, value, toString(unit) AS unit, toString(direction) AS direction,
            toUnixTimestamp64Milli(ts) AS t
     FROM bench_results FINAL
     WHERE org_id = {org_id:String} AND run_id IN {run_ids:Array(String)}
     ORDER BY run_id, metric`,
    { org_id: orgId, run_ids: [...runIds] },
  );
  return rows.map((r) => ({
    run_id: String(r.run_id),
    metric: String(r.metric),
    value: toNum(r.value),
    unit: String(r.unit),
    direction: r.direction === 'lower' ? 'lower' : 'higher',
    ts: toNum(r.t),
  }));
}

/** Stores a run's summary results; a later insert for the same (run, metric) replaces the value. */
export async function insertBenchResults(
  ch: TClickHouse,
  orgId: string,
  runId: string,
  results: readonly TBenchResult[],
  ts: number = Date.now(),
): Promise<void> {
  if (results.length === 0) return;
  const t = formatTs(ts);
  results.forEach((r, i) => {
    if (typeof r.metric !== 'string' || r.metric === '')
      throw new Error(`results[${i}].metric must be a non-empty string`);
    if (!Number.isFinite(r.value)) throw new Error(`results[${i}].value must be a finite number`);
    if (r.direction !== 'higher' && r.direction !== 'lower')
      throw new Error(`results[${i}].direction must be higher or lower`);
  });
  await toClient(ch).insert({
    table: 'bench_results',
    format: 'JSONEachRow',
    values: results.map((r) => ({
      org_id: orgId,
      run_id: runId,
      metric: r.metric,
      value: r.value,
      unit: r.unit ?? '',
      direction: r.direction,
      ts: t,
    })),
  });
}

/** Interval samples stored per run (runs without any are absent from the map). */
export async function countBenchSamples(
  ch: TClickHouse,
  orgId: string,
  runIds: readonly string[],
): Promise<Map<string, number>> {
  if (runIds.length === 0) return new Map();
  const rows = await selectRows<Record<string, unknown>>(
    ch,
    `SELECT run_id, count() AS n FROM bench_samples
     WHERE org_id = {org_id:String} AND run_id IN {run_ids:Array(String)}
     GROUP BY run_id`,
    { org_id: orgId, run_ids: [...runIds] },
  );
  return new Map(rows.map((r) => [String(r.run_id), toNum(r.n)]));
}
