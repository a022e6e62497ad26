/** `clusterscope submit`: post a finished benchmark's output as a run. */
import { detectTool, parseOutput } from '@clusterscope/bench';
import { ApiError, type ApiClient, type TOutputResult } from './api-client';
import { CiPublisher, NO_CI, reportRun } from './ci';
import type { RunTarget } from './common';
import { EXIT_REGRESSION, type RunIo } from './run';
import { readEnv } from '../env';

export interface SubmitOptions extends RunTarget {
  output: string;
  source: string;
}

export async function submitOutput(
  api: ApiClient,
  opts: SubmitOptions,
  io: Pick<RunIo, 'out' | 'err'>,
): Promise<number> {
  if (!opts.output.trim()) {
    io.err(`clusterscope: ${opts.source} is empty; nothing to submit\n`);
    return 1;
  }
  const tool = opts.tool ?? detectTool(opts.output) ?? undefined;
  // Validate locally first so an unreadable file doesn't leave a failed run behind.
  let local;
  try {
    local = parseOutput(opts.output, tool);
  } catch (e) {
    io.err(`clusterscope: ${opts.source}: ${(e as Error).message}\n`);
    return 1;
  }
  const ci = opts.ci ?? new CiPublisher(readEnv({}), NO_CI, io);
  await ci.begin(opts.cluster, opts.workload);
  const { id, notice } = await api.createRun({
    cluster: opts.cluster,
    workload: opts.workload,
    tool: local.tool,
    labels: Object.keys(opts.labels).length ? opts.labels : undefined,
    git: opts.git,
    machine: opts.machine,
  });
  if (notice) io.err(`clusterscope: ${notice} (this organization lets CI create clusters)\n`);
  let server: Partial<TOutputResult> | undefined;
  try {
    server = await api.postOutput(id, opts.output, local.tool);
  } catch (e) {
    if (e instanceof ApiError && e.status === 422) {
      // Server could not read it although we could (version skew): send our summary instead.
      await api.postResults(id, local.summary);
    } else {
      await api.finishRun(id, 'failed').catch(() => undefined);
      throw e;
    }
  }
  // An output that ends in an error (`Error: …` after the last tick) is a failed run.
  const failure = (typeof server?.error === 'string' && server.error) || local.error;
  await api.finishRun(id, failure ? 'failed' : 'succeeded', undefined, failure || undefined);
  io.out(
    `run ${id}: ${local.tool} ${local.workload}, ${local.samples.length} samples, ${local.summary.length} metrics\n`,
  );
  // The server's parse is what is stored; show it (ours only when the server could not read the output).
  const summary = Array.isArray(server?.summary) && server.summary.length ? server.summary : local.summary;
  for (const m of summary) io.out(`  ${m.name} = ${m.value}${m.unit ? ` ${m.unit}` : ''}\n`);
  for (const w of Array.isArray(server?.warnings) ? server.warnings : local.warnings)
    io.err(`clusterscope: warning: ${w}\n`);
  let code = 0;
  try {
    ({ code } = await reportRun(api, ci, id, {
      baseline: opts.baseline,
      startPoint: opts.startPoint,
      verdictMetrics: opts.verdictMetrics,
      failOnRegression: opts.failOnRegression && !failure,
    }));
  } catch (e) {
    io.err(`clusterscope: the report of run ${id} could not be read: ${(e as Error).message}\n`);
    if (opts.failOnRegression && !failure) return 1;
  }
  if (failure) {
    io.err(`clusterscope: run ${id} failed: the output ends in an error: ${failure}\n`);
    return 1;
  }
  return code === EXIT_REGRESSION ? EXIT_REGRESSION : code;
}
