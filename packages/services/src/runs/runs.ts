import { randomUUID } from 'node:crypto';
import { findOrCreateWorkload, insertRun, updateOpenRun, updateRunResults } from '@clusterscope/db';
import { getMetricInfo, getSampleSummary, ParseError } from '@clusterscope/bench';
import {
  FORMATS,
  getMachineKind,
  OUTPUT_MAX_BYTES,
  TOOLS,
  type TBenchSample,
  type TIntervalSample,
  type TMetric,
  type TRun,
  type TRunCreate,
  type TRunDetail,
  type TRunFinishIn,
  type TRunListIn,
  type TRunOutputIn,
  type TRunOutputResult,
  type TRunPage,
  type TRunResultsIn,
  type TRunSamplesIn,
  type TFormat,
  type TParseResult,
} from '@clusterscope/schema';
import { EncodeError, getBenchSamples, insertBenchResults, type TWriter } from '@clusterscope/tsdb';
import type { TDeps } from '../core/deps';
import { audit } from '../tenancy/audit';
import { assertCan, type TCaller } from '../tenancy/caller';
import { AppError } from '../core/errors';
import { resolveCluster, resolveOrCreateRunCluster } from '../tenancy/clusters';
import { getRunSummary, loadRun, queryRuns, toRunDto, type TRunRow } from '../tenancy/access';
import { getIngestWriter } from '../ingest/ingest';
import { handleRunFinished } from './thresholds';
import {
  decodeOutput,
  inThreadParser,
  ParseInputError,
  ParseTimeout,
  ParseWorkerError,
  toBenchSamples,
  type TOutputSamples,
} from '../ingest/parse-pool';

const isFormat = (t: string): t is TFormat => (FORMATS as readonly string[]).includes(t);

const asRecord = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

export async function createRun(
  deps: TDeps,
  caller: TCaller,
  input: TRunCreate,
): Promise<{ id: string; parsed?: TRunOutputResult; notice?: string }> {
  assertCan(caller, { run: ['write'] });
  const { cluster, created } = await resolveOrCreateRunCluster(deps, caller, input.cluster);
  // A typo in `cluster` makes a new cluster when the org lets CI create them: say so in the answer.
  const notice = created ? `created cluster '${cluster.name}'` : undefined;
  // Without `tool`, the posted output names it (a new workload needs one).
  const detected =
    input.tool ?? (input.output !== undefined ? await parseOff(deps, (p) => p.detect(input.output!)) : null);
  const workload = await findOrCreateWorkload(deps.db, caller.orgId, input.workload, detected);
  if (!workload)
    throw new AppError(
      'UNPROCESSABLE_CONTENT',
      input.output !== undefined
        ? `output: no known tool recognised in it (one of ${FORMATS.join(', ')}); send tool to create workload '${input.workload}'`
        : `tool: required to create workload '${input.workload}' (one of ${TOOLS.join(', ')}), or send output to detect it`,
    );
  if (input.confirms) {
    const suspect = await loadRun(deps, caller, input.confirms).catch(() => null);
    if (!suspect) throw new AppError('UNPROCESSABLE_CONTENT', `confirms: no run '${input.confirms}'`);
    if (suspect.workloadId !== workload.id || suspect.clusterId !== cluster.id)
      throw new AppError(
        'UNPROCESSABLE_CONTENT',
        `confirms: run '${input.confirms}' is of another workload or cluster (a confirmation re-runs the same workload on the same cluster)`,
      );
  }
  const run = await insertRun(deps.db, caller.orgId, {
    confirmsRunId: input.confirms ?? null,
    confirmRuns: input.confirm ?? null,
    clusterId: cluster.id,
    workloadId: workload.id,
    workloadVersion: workload.version,
    tool: detected ?? workload.tool,
    params: input.params ?? asRecord(workload.params),
    gitRepo: input.git?.repo || null,
    gitBranch: input.git?.branch || null,
    gitSha: input.git?.sha || null,
    labels: input.labels ?? {},
    startedAt: input.startedAt ? new Date(input.startedAt) : new Date(),
    createdById: caller.kind === 'user' ? caller.userId : null,
    machine: input.machine ?? null,
    machineKind: input.machine ? getMachineKind(input.machine) : null,
  });
  await audit(deps, caller, {
    action: 'run.create',
    targetId: run.id,
    data: { workload: workload.name, cluster: cluster.name },
  });
  if (input.output === undefined) return { id: run.id, notice };
  const parsed = await addRunOutput(deps, caller, {
    id: run.id,
    output: input.output,
    tool: detected ?? undefined,
  });
  return { id: run.id, parsed, notice };
}

export async function getRun(deps: TDeps, caller: TCaller, id: string): Promise<TRunDetail> {
  assertCan(caller, { run: ['read'] });
  const r = await loadRun(deps, caller, id);
  return { ...toRunDto(r), hasRawOutput: r.rawOutput != null };
}

/** Raw tool output of a run ('' when none was posted). */
export async function getRunOutput(deps: TDeps, caller: TCaller, id: string): Promise<string> {
  assertCan(caller, { run: ['read'] });
  const r = await loadRun(deps, caller, id);
  return r.rawOutput ?? '';
}

function parseLabels(s: string | undefined): Record<string, string> | undefined {
  if (!s) return undefined;
  const out: Record<string, string> = {};
  for (const part of s.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) throw new AppError('BAD_REQUEST', `label: expected key=value, got '${part}'`);
    out[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  return out;
}

/** REST run list: keyset pages of the caller's visible runs. */
export async function listRuns(deps: TDeps, caller: TCaller, input: TRunListIn): Promise<TRunPage> {
  assertCan(caller, { run: ['read'] });
  const clusterId = input.cluster ? (await resolveCluster(deps, caller, input.cluster)).id : undefined;
  const page = await queryRuns(
    deps,
    caller,
    {
      clusterId,
      workload: input.workload,
      tool: input.tool,
      branch: input.branch,
      status: input.status,
      labels: Object.entries(parseLabels(input.label) ?? {}).map(([key, value]) => ({ key, value })),
      from: input.from ? new Date(input.from) : undefined,
      to: input.to ? new Date(input.to) : undefined,
    },
    { limit: input.limit, cursor: input.cursor },
  );
  return { items: page.items.map(toRunDto), nextCursor: page.nextCursor };
}

const benchSamples = (run: TRunRow, samples: Parameters<typeof toBenchSamples>[1]) =>
  toBenchSamples({ runId: run.id, startedAt: run.startedAt.getTime() }, samples);

async function writeSamples(run: TRunRow, batchId: string, samples: TBenchSample[], writer: TWriter) {
  return toWriteError(() => writer.write(run.organizationId, run.clusterId, batchId, samples));
}

/** Samples the parse worker encoded (TOutputSamples): the event loop only hands their bytes on. */
function writeEncodedSamples(run: TRunRow, batchId: string, samples: TOutputSamples, writer: TWriter) {
  return toWriteError(() =>
    writer.writeEncoded(run.organizationId, batchId, samples.count, () => samples.encoded),
  );
}

async function toWriteError<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (err instanceof AppError) throw err;
    const msg = (err as Error).message ?? String(err);
    if (err instanceof EncodeError) throw new AppError('BAD_REQUEST', msg);
    throw new AppError('SERVICE_UNAVAILABLE', `ClickHouse is unavailable: ${msg}`, {
      dependency: 'clickhouse',
    });
  }
}

/** Live interval samples from CI, written through the ingest writer as bench_sample rows. */
export async function addRunSamples(
  deps: TDeps,
  caller: TCaller,
  input: TRunSamplesIn,
  writer: TWriter = getIngestWriter(deps),
): Promise<{ accepted: number; duplicate: boolean; clusterId: string | null }> {
  assertCan(caller, { run: ['write'] });
  const run = await loadRun(deps, caller, input.id);
  if (run.finishedAt) throw new AppError('CONFLICT', `run '${run.id}' is already finished (${run.status})`);
  const res = await writeSamples(
    run,
    `run:${run.id}:${input.batchId ?? randomUUID()}`,
    benchSamples(run, input.samples),
    writer,
  );
  return { ...res, clusterId: run.clusterId };
}

function mergeSummary(old: TMetric[], add: TMetric[]): TMetric[] {
  const by = new Map(old.map((m) => [m.name, m]));
  for (const m of add) by.set(m.name, m);
  return [...by.values()];
}

/** Runs `f` on deps.parser (a worker with a time budget); maps its failures to 422 and 503. */
async function parseOff<T>(deps: TDeps, f: (p: NonNullable<TDeps['parser']>) => Promise<T>): Promise<T> {
  try {
    return await f(deps.parser ?? inThreadParser);
  } catch (err) {
    if (err instanceof ParseError)
      throw new AppError('UNPROCESSABLE_CONTENT', `output: ${err.message}; recognised: ${err.recognised}`, {
        recognised: err.recognised,
        tool: err.tool,
      });
    if (err instanceof ParseTimeout)
      throw new AppError('UNPROCESSABLE_CONTENT', `output: ${err.message}; send a shorter output`);
    if (err instanceof ParseWorkerError)
      throw new AppError('SERVICE_UNAVAILABLE', `output: ${err.message}`, { dependency: 'parse-worker' });
    if (err instanceof ParseInputError) throw new AppError('BAD_REQUEST', `output: ${err.message}`);
    throw err;
  }
}

const INCOMPLETE = 'incomplete: the output ended before the final summary (interrupted run?)';

/**
 * Raw output from CI: parsed with @clusterscope/bench, stored raw on the run, summary into
 * bench_results + Run.summary. Interval samples are stored only when none were posted live for the run
 * (never both), under a fixed batch id so a retried post is stored once.
 */
export async function addRunOutput(
  deps: TDeps,
  caller: TCaller,
  input: TRunOutputIn,
  writer: TWriter = getIngestWriter(deps),
): Promise<TRunOutputResult> {
  assertCan(caller, { run: ['write'] });
  const run = await loadRun(deps, caller, input.id);
  const tool = input.tool ?? (isFormat(run.tool) ? run.tool : undefined);
  // As bytes, like a text/plain body: the worker also encodes the samples, which on the event loop took seconds.
  const { result, samples } = await parseOff(deps, (p) =>
    p.parseBytes(Buffer.from(input.output), tool, sampleRows(run)),
  );
  return storeRunOutput(deps, run, result, input.output, writer, samples);
}

/** Where a run's parsed samples go (TSampleRows). */
const sampleRows = (run: TRunRow) => ({
  orgId: run.organizationId,
  clusterId: run.clusterId,
  runId: run.id,
  startedAt: run.startedAt.getTime(),
});

/**
 * addRunOutput of a raw body (`text/plain`): the bytes go to the parse worker as they are, and become a
 * string on the event loop only once they parsed, to be stored. An output that cannot be parsed in time is
 * never decoded, escaped or copied here.
 */
export async function addRunOutputBytes(
  deps: TDeps,
  caller: TCaller,
  input: Omit<TRunOutputIn, 'output'> & { bytes: Uint8Array },
  writer: TWriter = getIngestWriter(deps),
): Promise<TRunOutputResult> {
  assertCan(caller, { run: ['write'] });
  if (input.bytes.byteLength > OUTPUT_MAX_BYTES)
    throw new AppError('PAYLOAD_TOO_LARGE', `output: more than ${OUTPUT_MAX_BYTES / 1024} KB`);
  const run = await loadRun(deps, caller, input.id);
  const tool = input.tool ?? (isFormat(run.tool) ? run.tool : undefined);
  const { result, bytes, samples } = await parseOff(deps, (p) =>
    p.parseBytes(input.bytes, tool, sampleRows(run)),
  );
  return storeRunOutput(deps, run, result, decodeOutput(bytes), writer, samples);
}

/**
 * Stores a parsed output: its interval samples (as `encoded` when the parse worker encoded them, else
 * from `parsed.samples`), its summary and the raw text.
 */
async function storeRunOutput(
  deps: TDeps,
  run: TRunRow,
  parsed: TParseResult,
  output: string,
  writer: TWriter,
  encoded?: TOutputSamples,
): Promise<TRunOutputResult> {
  const warnings = [...parsed.warnings];
  if (parsed.incomplete && !warnings.some((w) => w.startsWith('incomplete'))) warnings.push(INCOMPLETE);

  let stored = 0;
  const count = encoded?.count ?? parsed.samples.length;
  let sampleSummary = encoded?.summary ?? getSampleSummary(parsed.samples);
  if (count > 0) {
    const live = await getBenchSamples(deps.ch, run.organizationId, [run.id]).catch((err: Error) => {
      throw new AppError('SERVICE_UNAVAILABLE', `ClickHouse is unavailable: ${err.message}`, {
        dependency: 'clickhouse',
      });
    });
    if (live.length === 0) {
      const batchId = `run:${run.id}:output`;
      const res = encoded
        ? await writeEncodedSamples(run, batchId, encoded, writer)
        : await writeSamples(run, batchId, benchSamples(run, parsed.samples), writer);
      stored = res.duplicate ? 0 : count;
    } else {
      warnings.push("interval samples were posted live; kept those and ignored the output's intervals");
      sampleSummary = getSampleSummary(toSamples(live));
    }
  }
  // Each metric gets one stored value, here and once: the tool's own, else its samples' (getSampleSummary).
  const have = new Set([...getRunSummary(run), ...parsed.summary].map((m) => m.name));
  const summary = [...parsed.summary, ...sampleSummary.filter((m) => !have.has(m.name))];
  await storeMetrics(deps, run, summary);
  await updateRunResults(deps.db, run.organizationId, run.id, {
    rawOutput: output,
    toolWorkload: run.toolWorkload || parsed.workload,
    summary: mergeSummary(getRunSummary(run), summary),
    warnings: [...new Set([...run.warnings, ...warnings])],
    ...(parsed.error && !run.finishedAt ? { error: parsed.error } : {}),
  });
  return {
    tool: parsed.tool,
    workload: parsed.workload,
    summary,
    warnings,
    incomplete: parsed.incomplete,
    samples: stored,
    error: parsed.error ?? null,
  };
}

function toSamples(rows: readonly { elapsed_s: number; metric: string; value: number }[]): TIntervalSample[] {
  const by = new Map<number, Record<string, number>>();
  for (const r of rows)
    (by.get(r.elapsed_s) ?? by.set(r.elapsed_s, {}).get(r.elapsed_s)!)[r.metric] = r.value;
  return [...by].sort((a, b) => a[0] - b[0]).map(([elapsed_s, values]) => ({ elapsed_s, values }));
}

async function storeMetrics(deps: TDeps, run: TRunRow, metrics: TMetric[]) {
  try {
    await insertBenchResults(
      deps.ch,
      run.organizationId,
      run.id,
      metrics.map((m) => ({ metric: m.name, value: m.value, unit: m.unit, direction: m.direction })),
    );
  } catch (err) {
    throw new AppError('SERVICE_UNAVAILABLE', `ClickHouse is unavailable: ${(err as Error).message}`, {
      dependency: 'clickhouse',
    });
  }
}

/** Already-structured metrics; unit and direction come from the catalogue when omitted. */
export async function addRunResults(
  deps: TDeps,
  caller: TCaller,
  input: TRunResultsIn,
): Promise<{ summary: TMetric[] }> {
  assertCan(caller, { run: ['write'] });
  const run = await loadRun(deps, caller, input.id);
  const problems: string[] = [];
  const metrics: TMetric[] = input.metrics.map((m, i) => {
    const info = getMetricInfo(m.name);
    const direction = m.direction ?? info?.direction;
    if (!direction)
      problems.push(`metrics.${i}.direction: required for '${m.name}' (not in the metric catalogue)`);
    return {
      name: m.name,
      value: m.value,
      unit: m.unit ?? info?.unit ?? '',
      direction: direction ?? 'higher',
    };
  });
  if (problems.length) throw new AppError('UNPROCESSABLE_CONTENT', problems.join('; '));
  await storeMetrics(deps, run, metrics);
  const summary = mergeSummary(getRunSummary(run), metrics);
  await updateRunResults(deps.db, run.organizationId, run.id, { summary });
  return { summary };
}

/**
 * Called once when a run reaches a final status: stores the run window's environment health and
 * evaluates the workload's thresholds (thresholds.ts).
 */
export async function onRunFinished(deps: TDeps, run: TRun, orgId: string): Promise<TRun> {
  const res = await handleRunFinished(deps, orgId, run.id);
  return res ? { ...run, envHealthy: res.envHealthy } : run;
}

/** An output that ended in an error (stored as the open run's error) fails a run reported as succeeded. */
export function finalStatus<S extends string>(
  run: { error: string | null },
  input: { status: S; exitCode?: number | null; error?: string | null },
): { status: S | 'failed'; exitCode: number | null; error: string | null } {
  const failedOutput = input.status === 'succeeded' && run.error;
  return {
    status: failedOutput ? 'failed' : input.status,
    exitCode: input.exitCode ?? null,
    error: input.error ?? (failedOutput ? `the output ends in an error: ${run.error}` : (run.error ?? null)),
  };
}

export async function finishRun(deps: TDeps, caller: TCaller, input: TRunFinishIn): Promise<TRun> {
  assertCan(caller, { run: ['write'] });
  const run = await loadRun(deps, caller, input.id);
  if (run.finishedAt) throw new AppError('CONFLICT', `run '${run.id}' is already finished (${run.status})`);
  const finishedAt = input.finishedAt ? new Date(input.finishedAt) : new Date();
  if (finishedAt < run.startedAt)
    throw new AppError(
      'UNPROCESSABLE_CONTENT',
      `finishedAt: before the run's startedAt (${run.startedAt.toISOString()})`,
    );
  const final = finalStatus(run, input);
  const done = await updateOpenRun(deps.db, run.organizationId, run.id, { ...final, finishedAt });
  if (!done) throw new AppError('CONFLICT', `run '${run.id}' is already finished`);
  await audit(deps, caller, {
    action: 'run.finish',
    targetId: run.id,
    data: { status: final.status, exitCode: final.exitCode },
  });
  return onRunFinished(deps, toRunDto(done), run.organizationId);
}
