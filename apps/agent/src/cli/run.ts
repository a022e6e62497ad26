/** `clusterscope run`: spawn a benchmark, stream its interval samples live, post its output, finish the run. */
import { spawn } from 'node:child_process';
import { parseOutput } from '@clusterscope/bench';
import type { ApiClient, TLiveSample } from './api-client';
import { CiPublisher, NO_CI, reportRun } from './ci';
import type { RunTarget } from './common';
import { readEnv } from '../env';

export interface RunOptions extends RunTarget {
  argv: string[];
  /** On a suspected regression, run the tool this many more times as confirmation runs (`--confirm N`). */
  confirm?: number;
  /** How often the accumulated output is parsed for new interval samples. */
  sampleEveryMs?: number;
}

export interface RunIo {
  out: (chunk: Buffer | string) => void;
  err: (chunk: Buffer | string) => void;
  /** Registers a signal forwarder; returns an unregister function. */
  onSignal?: (handler: (sig: NodeJS.Signals) => void) => () => void;
}

export const EXIT_REGRESSION = 3;

const note = (io: RunIo, msg: string) => io.err(`clusterscope: ${msg}\n`);

type TToolRun = {
  id: string;
  status: 'succeeded' | 'failed' | 'cancelled';
  exitCode: number;
  outputError?: string;
};

/**
 * Returns the process exit code: the tool's, or 3 on a regression with --fail-on-regression. With
 * `--confirm N`, a suspected regression runs the tool N more times, each posted as a confirmation run of
 * the first; the server decides (the regressed metric regresses again in every counted one), and only a
 * confirmed regression exits 3.
 */
export async function runBenchmark(api: ApiClient, opts: RunOptions, io: RunIo): Promise<number> {
  const ci = opts.ci ?? new CiPublisher(readEnv({}), NO_CI, { out: io.out, err: io.err });
  await ci.begin(opts.cluster, opts.workload);
  const first = await runTool(api, opts, io, { confirm: opts.confirm || undefined });
  const { id, status, exitCode: code0, outputError } = first;
  if (opts.confirm && status === 'succeeded') {
    try {
      let state = (await api.report(id)).confirmation?.state;
      for (let i = 1; state === 'suspected' && i <= opts.confirm; i++) {
        note(io, `suspected regression: confirmation run ${i} of ${opts.confirm}`);
        const c = await runTool(api, opts, io, { confirms: id });
        if (c.status === 'cancelled') break;
        state = (await api.report(id)).confirmation?.state;
      }
      if (state && state !== 'none') note(io, `run ${id}: regression ${state.replace('_', ' ')}`);
    } catch (e) {
      note(io, `confirming run ${id} failed: ${(e as Error).message}`);
    }
  }
  try {
    const { code } = await reportRun(api, ci, id, {
      baseline: opts.baseline,
      startPoint: opts.startPoint,
      verdictMetrics: opts.verdictMetrics,
      failOnRegression: opts.failOnRegression && status === 'succeeded',
    });
    if (code === EXIT_REGRESSION) {
      note(
        io,
        `regression against ${opts.baseline ?? 'the default baseline'}: exiting with ${EXIT_REGRESSION}`,
      );
      return EXIT_REGRESSION;
    }
    if (code !== 0 && code0 === 0) return code;
  } catch (e) {
    note(io, `the report of run ${id} could not be read: ${(e as Error).message}`);
    if (opts.failOnRegression && status === 'succeeded') return 1;
  }
  // The tool exited 0 but its output ends in an error: the run failed, and so does this command.
  return code0 === 0 && outputError && status !== 'cancelled' ? 1 : code0;
}

/** Runs the tool once as one run (live samples, output, finish). */
async function runTool(
  api: ApiClient,
  opts: RunOptions,
  io: RunIo,
  link: { confirm?: number; confirms?: string },
): Promise<TToolRun> {
  const startedAt = Date.now();
  const { id, notice } = await api.createRun({
    ...link,
    cluster: opts.cluster,
    workload: opts.workload,
    tool: opts.tool,
    params: { argv: opts.argv },
    git: opts.git,
    machine: opts.machine,
    labels: Object.keys(opts.labels).length ? opts.labels : undefined,
    startedAt: new Date(startedAt).toISOString(),
  });
  if (notice) note(io, `${notice} (this organization lets CI create clusters)`);
  note(io, `run ${id} created (${opts.tool ?? 'tool auto-detected'}); running ${opts.argv.join(' ')}`);

  let output = '';
  let posted = 0;
  let parsedUpTo = -1;
  let posting: Promise<void> = Promise.resolve();
  let warnedPost = false;
  /** A chunk once formed is retried as is, under the same batchId, so a lost answer never duplicates it. */
  let pending: { batchId: string; samples: TLiveSample[] } | undefined;

  const postPending = async (): Promise<boolean> => {
    if (!pending) return true;
    try {
      await api.postSamples(id, pending.samples, pending.batchId);
      posted += pending.samples.length;
      pending = undefined;
      return true;
    } catch (e) {
      if (!warnedPost) note(io, `posting live samples failed (will retry): ${(e as Error).message}`);
      warnedPost = true;
      return false;
    }
  };

  /** Parse the complete lines seen so far and post samples not yet posted. */
  const pushSamples = (final: boolean) => {
    posting = posting.then(async () => {
      if (!(await postPending())) return;
      const cut = final ? output.length : output.lastIndexOf('\n') + 1;
      if (cut <= 0 || cut === parsedUpTo) return;
      let samples;
      try {
        samples = parseOutput(output.slice(0, cut), opts.tool).samples;
      } catch {
        return; // not enough output yet to recognise the tool
      }
      parsedUpTo = cut;
      const fresh = samples.slice(posted);
      if (fresh.length === 0) return;
      pending = {
        batchId: `live-${id}-${posted}`,
        samples: fresh.map((s) => ({
          ts: Math.round(startedAt + s.elapsed_s * 1000),
          elapsed_s: s.elapsed_s,
          values: s.values,
        })),
      };
      await postPending();
    });
    return posting;
  };

  let cancelled = false;
  const child = spawn(opts.argv[0], opts.argv.slice(1), { stdio: ['inherit', 'pipe', 'pipe'] });
  const onData = (write: (c: Buffer) => void) => (c: Buffer) => {
    write(c);
    output += c.toString('utf8');
  };
  child.stdout.on('data', onData(io.out));
  child.stderr.on('data', onData(io.err));
  const unregister = io.onSignal?.((sig) => {
    cancelled = true;
    child.kill(sig);
  });
  const timer = setInterval(() => void pushSamples(false), opts.sampleEveryMs ?? 1000);

  const exit = await new Promise<{ code: number; spawnError?: string }>((resolve) => {
    child.once('error', (e: NodeJS.ErrnoException) =>
      resolve({
        code: e.code === 'ENOENT' ? 127 : 126,
        spawnError: e.code === 'ENOENT' ? `"${opts.argv[0]}" not found on PATH` : e.message,
      }),
    );
    child.once('close', (code, signal) =>
      resolve({ code: code ?? (signal ? 128 + signalNumber(signal) : 1) }),
    );
  });
  clearInterval(timer);
  unregister?.();
  if (exit.spawnError) note(io, `cannot run the tool: ${exit.spawnError}`);
  await pushSamples(true);
  for (let i = 0; pending && i < 3; i++) {
    await new Promise((r) => setTimeout(r, 500 * (i + 1)));
    await pushSamples(true);
  }

  let outputError: string | undefined;
  if (output.trim()) {
    try {
      const res = await api.postOutput(id, output, opts.tool);
      if (typeof res?.error === 'string' && res.error) outputError = res.error;
      const summary = Array.isArray(res?.summary) ? res.summary : [];
      if (summary.length)
        note(
          io,
          `summary: ${summary.map((m) => `${m.name}=${m.value}${m.unit ? ` ${m.unit}` : ''}`).join(', ')}`,
        );
      for (const w of Array.isArray(res?.warnings) ? res.warnings : []) note(io, `warning: ${w}`);
    } catch (e) {
      note(io, `posting the output failed: ${(e as Error).message}`);
    }
  }
  const status = cancelled ? 'cancelled' : exit.code === 0 && !outputError ? 'succeeded' : 'failed';
  if (outputError && !cancelled) note(io, `the output ends in an error: ${outputError}`);
  try {
    await api.finishRun(id, status, exit.code, exit.code === 0 ? outputError : undefined);
  } catch (e) {
    note(io, `finishing run ${id} failed: ${(e as Error).message}`);
  }
  note(io, `run ${id} ${status} (exit code ${exit.code}, ${posted} live samples posted)`);
  return { id, status, exitCode: exit.code, outputError };
}

function signalNumber(sig: NodeJS.Signals): number {
  const n: Partial<Record<NodeJS.Signals, number>> = {
    SIGHUP: 1,
    SIGINT: 2,
    SIGQUIT: 3,
    SIGKILL: 9,
    SIGTERM: 15,
  };
  return n[sig] ?? 1;
}
