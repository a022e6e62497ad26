import { stringify, type Options as CsvOptions } from 'csv-stringify/sync';
import { shortId, type TExportFile, type TRunFilter } from '@clusterscope/schema';
import type { TDeps } from '../core/deps';
import type { TCaller } from '../tenancy/caller';
import { compareRunIds, findRunRows, getRunDetail } from './compare';
import { getRunSummary, toRunBrief } from '../tenancy/access';
import { AppError } from '../core/errors';

export type TExportFormat = 'csv' | 'json';

/**
 * A string a spreadsheet would run as a formula gets a leading quote (CSV injection, OWASP): = + - @ and a
 * leading tab, carriage return or line feed, which spreadsheets skip before reading the formula.
 */
const defuse = (s: string) => (/^[=+\-@\t\r\n]/.test(s) ? `'${s}` : s);

const CSV_OPTIONS: CsvOptions = {
  record_delimiter: 'windows',
  // RFC 4180: a bare CR or LF is quoted too, not only the CRLF record delimiter.
  quoted_match: /[\r\n]/,
  cast: {
    string: defuse,
    boolean: (b) => String(b),
    date: (d) => d.toISOString(),
    object: (o) => JSON.stringify(o),
  },
};

export function toCsv(header: readonly string[], rows: readonly (readonly unknown[])[]): string {
  return stringify(header.length ? [header, ...rows] : [...rows], CSV_OPTIONS) as string;
}

export function parseExportFormat(v: string | null | undefined): TExportFormat {
  if (v === undefined || v === null || v === '' || v === 'csv') return 'csv';
  if (v === 'json') return 'json';
  throw new AppError('BAD_REQUEST', `format: expected csv or json, got '${v}'`);
}

function file(name: string, format: TExportFormat, csv: () => string, json: () => unknown): TExportFile {
  return format === 'csv'
    ? { filename: `${name}.csv`, contentType: 'text/csv; charset=utf-8', body: csv() }
    : { filename: `${name}.json`, contentType: 'application/json', body: JSON.stringify(json(), null, 2) };
}

const stamp = () => new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-');

/** Runs matching the list filters: one row per run with its summary metrics as columns. */
export async function exportRuns(
  deps: TDeps,
  caller: TCaller,
  filter: TRunFilter,
  format: TExportFormat,
): Promise<TExportFile> {
  const rows = await findRunRows(deps, caller, filter);
  const runs = rows.map((r) => ({ ...toRunBrief(r), summary: getRunSummary(r) }));
  const metrics = [...new Set(runs.flatMap((r) => r.summary.map((m) => m.name)))].sort();
  const units = new Map(runs.flatMap((r) => r.summary.map((m) => [m.name, m.unit] as const)));
  return file(
    `runs-${stamp()}`,
    format,
    () =>
      toCsv(
        [
          'id', 'started_at', 'finished_at', 'status', 'tool', 'tool_workload', 'workload', 'cluster',
          'git_branch', 'git_sha', 'labels', 'env_healthy',
          ...metrics.map((m) => (units.get(m) ? `${m} (${units.get(m)})` : m)),
        ], // prettier-ignore
        runs.map((r) => [
          r.id, r.startedAt, r.finishedAt, r.status, r.tool, r.toolWorkload, r.workloadName, r.clusterName,
          r.gitBranch, r.gitSha, Object.entries(r.labels).map(([k, v]) => `${k}=${v}`).join(';'), r.envHealthy,
          ...metrics.map((m) => r.summary.find((x) => x.name === m)?.value),
        ]), // prettier-ignore
      ),
    () => runs,
  );
}

/** One run's results: summary metrics and interval samples. */
export async function exportResults(
  deps: TDeps,
  caller: TCaller,
  runId: string,
  format: TExportFormat,
): Promise<TExportFile> {
  const d = await getRunDetail(deps, caller, runId);
  return file(
    `run-${runId}-results`,
    format,
    () =>
      toCsv(
        ['kind', 'metric', 'elapsed_s', 'value', 'unit', 'direction'],
        [
          ...d.summary.map((m) => ['summary', m.name, '', m.value, m.unit, m.direction]),
          ...Object.entries(d.series).flatMap(([metric, pts]) =>
            pts.flatMap(([t, v]) => (v === null ? [] : [['sample', metric, t, v, '', d.direction[metric]]])),
          ),
        ],
      ),
    () => ({
      run: { id: d.id, tool: d.tool, toolWorkload: d.toolWorkload, gitBranch: d.gitBranch, gitSha: d.gitSha, labels: d.labels, status: d.status, startedAt: d.startedAt, finishedAt: d.finishedAt, envHealthy: d.envHealthy, params: d.params }, // prettier-ignore
      summary: d.summary.map(({ label: _label, ...m }) => m),
      samples: d.series,
    }),
  );
}

/** A comparison: one row per (metric, compared run) against the first run. */
export async function exportComparison(
  deps: TDeps,
  caller: TCaller,
  runIds: string | readonly string[],
  format: TExportFormat,
): Promise<TExportFile> {
  const c = await compareRunIds(deps, caller, runIds);
  const base = c.runs[0].id;
  return file(
    `compare-${c.runs.map((r) => shortId(r.id)).join('-')}`,
    format,
    () =>
      toCsv(
        ['metric', 'unit', 'direction', 'baseline_run', 'run', 'baseline', 'value', 'change_pct', 'ci95_lo', 'ci95_hi', 'p_value', 'test', 'verdict'], // prettier-ignore
        c.metrics.flatMap(
          (m) =>
          m.deltas.map((d) => [
            m.metric, m.unit, m.direction, base, d.run_id, d.baseline, d.value, d.change_pct,
            d.ci95?.[0], d.ci95?.[1], d.p_value, d.test, d.verdict,
          ]), // prettier-ignore
        ),
      ),
    () => ({ runs: c.runs, metrics: c.metrics }),
  );
}
