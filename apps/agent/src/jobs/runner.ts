/**
 * The job loop: long-polls the server for runs queued from the dashboard, runs each tool by its absolute
 * path without a shell, streams interval samples through the outbox (→ /api/v1/ingest), renews the lease
 * (which also carries cancel requests), posts the output for the bench parsers and finishes the run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseOutput } from '@clusterscope/bench';
import { checkHostEntry, type TJobLimits, type TSample } from '@clusterscope/schema';
import { detectTools } from '../inputs/heartbeat/index';
import { httpRequest } from '../lib/http';
import { errorMessage, type Logger } from '../lib/log';
import {
  buildPlan,
  JobError,
  moveWorkDir,
  pinAddress,
  resolveTarget,
  TOOL_BINARY,
  type TJobSpec,
  type TStep,
} from './argv';
import type { TJobsSettings } from './config';
import { confineDir, confineHost } from './confine';
import { readEnv } from '../env';
import { collectMachine } from '../lib/machine';

export interface TJob extends TJobSpec {
  workload: string;
  timeoutS: number;
  leaseS: number;
}

export interface JobLoopDeps {
  url: string;
  token: string;
  agentName: string;
  config: TJobsSettings;
  logger: Logger;
  pathEnv: string;
  /** Queues interval samples for delivery (the agent's outbox). */
  enqueueSamples: (samples: TSample[]) => void;
  /** Waits until queued samples are delivered (before the output is posted). */
  drain: (deadline: number) => Promise<boolean>;
}

export type TFinal = 'succeeded' | 'failed' | 'cancelled' | 'timed_out';

class HttpError extends Error {
  constructor(
    readonly status: number,
    body: string,
  ) {
    super(`HTTP ${status}: ${body.slice(0, 500)}`);
  }
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((r) => {
    const t = setTimeout(r, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      r();
    });
  });

export class JobLoop {
  private readonly abort = new AbortController();
  private loop: Promise<void> | undefined;
  private tools: Map<string, string>;
  private current: ChildProcess | undefined;

  private readonly limits: TJobLimits;

  constructor(private readonly d: JobLoopDeps) {
    const bad = d.config.allowed_hosts.map(checkHostEntry).filter((x) => x !== null);
    if (bad.length) throw new Error(`jobs.allowed_hosts: ${bad.join('; ')}`);
    this.limits = {
      allowedDirs: d.config.allowed_dirs,
      allowedHosts: d.config.allowed_hosts,
      maxFileBytes: d.config.max_file_bytes,
    };
    // Absolute paths, resolved once from PATH at start-up (re-scanned when a tool is missing).
    this.tools = detectTools(Object.values(TOOL_BINARY), d.pathEnv);
  }

  private async api<T>(method: string, path: string, body?: unknown, timeoutMs = 30_000): Promise<T> {
    const res = await httpRequest(this.d.url.replace(/\/+$/, '') + '/api/v1' + path, {
      method,
      headers: {
        authorization: `Bearer ${this.d.token}`,
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      timeoutMs,
      maxBodyBytes: 16 * 1024 * 1024,
    });
    if (res.status < 200 || res.status >= 300) throw new HttpError(res.status, res.body);
    return (res.body ? JSON.parse(res.body) : undefined) as T;
  }

  start(): void {
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.abort.abort();
    this.current?.kill('SIGINT');
    await this.loop;
  }

  private async run(): Promise<void> {
    const { config, logger } = this.d;
    const signal = this.abort.signal;
    let backoff = 1000;
    logger.info('job loop started', {
      tools: Object.fromEntries(this.tools),
      disabled: config.disabled_tools,
      allowed_dirs: config.allowed_dirs,
      allowed_hosts: config.allowed_hosts,
      max_file_bytes: config.max_file_bytes,
    });
    while (!signal.aborted) {
      try {
        const qs = new URLSearchParams({
          agent: this.d.agentName,
          wait: String(Math.round(config.wait / 1000)),
          lease: String(Math.round(config.lease / 1000)),
          disabled: config.disabled_tools.join(','),
        });
        const { job } = await this.api<{ job: TJob | null }>(
          'GET',
          `/agent/jobs?${qs}`,
          undefined,
          config.wait + 30_000,
        );
        backoff = 1000;
        if (job) await this.runJob(job);
      } catch (e) {
        if (signal.aborted) break;
        const status = e instanceof HttpError ? e.status : 0;
        logger.warn('claiming a job failed; retrying', { err: errorMessage(e), retry_ms: backoff, status });
        await sleep(backoff, signal);
        backoff = Math.min(backoff * 2, 30_000);
      }
    }
  }

  /** Runs one claimed job to its end; never throws. */
  async runJob(job: TJob): Promise<TFinal | 'lost'> {
    const { config, logger } = this.d;
    const log = logger.child({ run: job.id, tool: job.tool });
    const ref = { agent: this.d.agentName };
    let cancelled = false;
    let timedOut = false;
    let lost = false;
    let started = false;
    let stopping: Promise<void> | undefined;
    const stopTool = (why: string) => {
      const child = this.current;
      if (!child || stopping) return;
      log.info('stopping the tool', { why });
      child.kill('SIGINT');
      stopping = sleep(config.grace).then(() => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      });
    };
    const renew = async () => {
      try {
        const r = await this.api<{ cancelRequested: boolean }>('POST', `/agent/jobs/${job.id}/lease`, {
          ...ref,
          lease: job.leaseS,
          running: started || undefined,
          // The run records the machine the tool runs on (this host), for baselines on the same kind.
          machine: started ? collectMachine(readEnv({})) : undefined,
        });
        if (r.cancelRequested && !cancelled) {
          cancelled = true;
          stopTool('cancel requested');
        }
      } catch (e) {
        if (e instanceof HttpError && (e.status === 409 || e.status === 404)) {
          lost = true;
          stopTool('lease lost');
        } else log.warn('lease renewal failed; will retry', { err: errorMessage(e) });
      }
    };
    const leaseTimer = setInterval(() => void renew(), Math.max(1000, (job.leaseS * 1000) / 3));
    const hardTimer = setTimeout(() => {
      timedOut = true;
      stopTool(`hard timeout of ${job.timeoutS} s`);
    }, job.timeoutS * 1000);

    let status: TFinal = 'failed';
    let exitCode: number | undefined;
    let error: string | undefined;
    let output = '';
    let secretDir: string | undefined;
    try {
      mkdirSync(config.work_dir, { recursive: true, mode: 0o700 });
      secretDir = join(config.work_dir, `.secret-${job.id.replace(/[^A-Za-z0-9_-]/g, '')}`);
      const checked = buildPlan(job, {
        secrets: config.secrets,
        workDir: config.work_dir,
        limits: this.limits,
        secretDir,
      });
      // The tool gets the real path confinement checked: a symlink swapped after the check cannot redirect it.
      const confined = checked.workDir
        ? moveWorkDir(checked, confineDir(checked.workDir, config.allowed_dirs))
        : checked;
      // The tools connect to the address that was checked (no second lookup for DNS rebinding to answer).
      const address = await confineHost(
        resolveTarget(job.target ?? '', config.secrets),
        config.allowed_hosts,
      );
      const plan = pinAddress(confined, address);
      if (plan.files?.length) {
        mkdirSync(secretDir, { recursive: true, mode: 0o700 });
        for (const f of plan.files) writeFileSync(f.path, f.content, { mode: 0o600, flag: 'w' });
      }
      let bin = this.tools.get(plan.binary);
      if (!bin) {
        this.tools = detectTools(Object.values(TOOL_BINARY), this.d.pathEnv);
        bin = this.tools.get(plan.binary);
      }
      if (!bin) throw new JobError(`'${plan.binary}' is not installed on this agent (not found on PATH)`);
      if ((config.disabled_tools as string[]).includes(job.tool))
        throw new JobError(`${job.tool} is disabled on this agent`);
      log.info('job started', { workload: job.workload, steps: plan.steps.map((s) => s.phase) });
      started = true;
      await renew();
      for (const s of plan.steps) {
        if (cancelled || timedOut || lost) break;
        const main = s.phase === 'main';
        const r = await this.spawnStep(bin, s, main ? job : undefined);
        if (main) {
          output = r.output;
          exitCode = r.code;
        } else if (r.code !== 0 && s.phase !== 'post' && !cancelled && !timedOut && !lost) {
          exitCode = r.code;
          throw new JobError(
            `${s.phase} step '${s.argv.slice(0, 3).join(' ')}…' exited with ${r.code}: ${tail(r.output)}`,
          );
        }
      }
      await stopping;
      status = timedOut ? 'timed_out' : cancelled ? 'cancelled' : exitCode === 0 ? 'succeeded' : 'failed';
      if (status === 'failed' && exitCode !== undefined) error = `exit code ${exitCode}: ${tail(output)}`;
    } catch (e) {
      status = cancelled ? 'cancelled' : timedOut ? 'timed_out' : 'failed';
      error = errorMessage(e);
      log.warn('job failed', { err: error });
    } finally {
      clearTimeout(hardTimer);
      if (secretDir) rmSync(secretDir, { recursive: true, force: true });
    }
    try {
      if (lost) {
        log.warn('lease lost: the server ended the run; not reporting');
        return 'lost';
      }
      await this.d.drain(Date.now() + 15_000);
      if (output.trim()) {
        try {
          await this.api('POST', `/agent/jobs/${job.id}/output`, { ...ref, output });
        } catch (e) {
          log.warn('posting the output failed', { err: errorMessage(e) });
          if (status === 'succeeded') error = `output not accepted: ${errorMessage(e)}`;
        }
      }
      await this.api('POST', `/agent/jobs/${job.id}/finish`, {
        ...ref,
        status,
        exitCode: exitCode !== undefined && exitCode >= -1024 && exitCode <= 1024 ? exitCode : undefined,
        error: error?.slice(0, 4000),
      });
      log.info('job finished', { status, exitCode });
      return status;
    } catch (e) {
      log.warn('finishing the job failed', { err: errorMessage(e) });
      return status;
    } finally {
      clearInterval(leaseTimer);
    }
  }

  /** Spawns one step (no shell) and collects its output; the main step streams interval samples. */
  private spawnStep(bin: string, s: TStep, live?: TJob): Promise<{ code: number; output: string }> {
    const { config, logger } = this.d;
    return new Promise((resolve) => {
      const t0 = Date.now();
      let output = '';
      let posted = 0;
      const [cmd, ...pre] = [...config.exec_prefix, bin];
      const child = spawn(cmd, [...pre, ...s.argv.slice(1)], {
        shell: false,
        cwd: s.cwd,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { PATH: this.d.pathEnv, LANG: 'C', HOME: config.work_dir, ...s.env },
      });
      this.current = child;
      const onData = (c: Buffer) => {
        if (output.length < 8 * 1024 * 1024) output += c.toString('utf8');
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      const push = (final: boolean) => {
        if (!live) return;
        const cut = final ? output.length : output.lastIndexOf('\n') + 1;
        if (cut <= 0) return;
        let samples;
        try {
          samples = parseOutput(output.slice(0, cut), live.tool).samples;
        } catch {
          return; // not enough output yet
        }
        const fresh = samples.slice(posted).filter((x) => Object.values(x.values).every(Number.isFinite));
        if (fresh.length === 0) return;
        posted = samples.length;
        this.d.enqueueSamples(
          fresh.map((x) => ({
            kind: 'bench_sample',
            ts: Math.round(t0 + x.elapsed_s * 1000),
            run_id: live.id,
            elapsed_s: x.elapsed_s,
            values: x.values,
          })),
        );
      };
      const timer = live ? setInterval(() => push(false), config.sample_every) : undefined;
      let ended = false;
      const done = (code: number) => {
        if (ended) return;
        ended = true;
        if (timer) clearInterval(timer);
        push(true);
        this.current = undefined;
        resolve({ code, output });
      };
      child.once('error', (e) => {
        logger.warn('spawn failed', { bin, err: errorMessage(e) });
        output += `\n${errorMessage(e)}`;
        done(127);
      });
      child.once('close', (code, sig) =>
        done(code ?? (sig === 'SIGKILL' ? 137 : sig === 'SIGINT' ? 130 : 1)),
      );
    });
  }
}

const tail = (s: string) => s.trim().split('\n').slice(-3).join(' | ').slice(0, 500);
