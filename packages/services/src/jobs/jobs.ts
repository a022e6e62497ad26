import { EventEmitter } from 'node:events';
import {
  claimNextJob,
  expireJobs,
  getAgentById,
  finishHeldJob,
  getHeldJob,
  getRun,
  getWorkload,
  renewJobLease,
  requestRunCancel,
  setAgentDisabledTools,
  writeAudit,
  type TRunRow,
} from '@clusterscope/db';
import {
  TOOL_BINARIES,
  TOOLS,
  ZJobClaimIn,
  ZJobFinishIn,
  ZJobLeaseIn,
  getMachineKind,
  type TMachine,
  type TJob,
  type TJobClaimIn,
  type TJobFinishIn,
  type TJobLeaseOut,
  type TRunOutputResult,
  type TRunProgress,
  type TRunStatus,
  type TTool,
} from '@clusterscope/schema';
import { getBenchSamples } from '@clusterscope/tsdb';
import type { TDeps } from '../core/deps';
import { audit } from '../tenancy/audit';
import { assertCan, type TCaller } from '../tenancy/caller';
import { AppError, notFound } from '../core/errors';
import { addRunOutput, finalStatus, onRunFinished } from '../runs/runs';
import { openSecret, secretKeysOf } from '../core/secrets';
import { loadRun, toRunDto } from '../tenancy/access';
import { logOf } from '../core/logger';

/**
 * Wake-ups for long-polling agents: a queued run emits here at once (this instance) and NOTIFYs
 * JOBS_CHANNEL (every instance, through deps.jobBus). A slow re-check covers a lost notice.
 */
const waiters = new EventEmitter();
waiters.setMaxListeners(0);
export const JOB_RECHECK_MS = 5000;
/** Concurrent long-polls one agent may hold on this instance (a restarted agent's old poll + its new one). */
export const JOB_POLLS_PER_AGENT = 2;
const polls = new Map<string, number>();

export function wakeJobWaiters(deps: Pick<TDeps, 'jobBus'>, orgId: string): void {
  waiters.emit(orgId);
  deps.jobBus?.publish({ orgId, topic: 'jobs' }).catch(() => undefined);
}

/** Subscribes before the first check, so a wake between the check and the wait is not lost. */
async function openWaker(deps: TDeps, orgId: string) {
  let pending = false;
  let wake: (() => void) | null = null;
  const fire = () => {
    if (wake) wake();
    else pending = true;
  };
  waiters.on(orgId, fire);
  const off = deps.jobBus
    ? await deps.jobBus
        .subscribe(orgId, (e) => {
          if (e.topic === 'jobs') fire();
        })
        .catch(() => () => undefined)
    : () => undefined;
  return {
    wait(ms: number, signal?: AbortSignal): Promise<void> {
      if (pending || signal?.aborted) {
        pending = false;
        return Promise.resolve();
      }
      return new Promise((resolve) => {
        const done = () => {
          clearTimeout(t);
          signal?.removeEventListener('abort', done);
          wake = null;
          resolve();
        };
        const t = setTimeout(done, ms);
        signal?.addEventListener('abort', done, { once: true });
        wake = done;
      });
    },
    close() {
      waiters.off(orgId, fire);
      off();
    },
  };
}

/**
 * The agent job routes accept only an agent credential, and act as the agent it names. The optional
 * `agent` parameter (kept for older agents) must be that agent's name.
 */
async function loadCallerAgent(deps: TDeps, caller: TCaller, named: string | undefined) {
  if (caller.kind !== 'token' || !caller.agentId)
    throw new AppError(
      'FORBIDDEN',
      'agent job endpoints need an agent credential (Settings → Agents → Add agent, or `admin agent enroll`)',
    );
  const a = await getAgentById(deps.db, caller.agentId);
  if (!a || a.organizationId !== caller.orgId) throw new AppError('UNAUTHORIZED', 'unknown agent');
  if (named !== undefined && named !== a.name)
    throw new AppError('FORBIDDEN', `agent: this credential belongs to agent '${a.name}', not '${named}'`);
  if (!a.clusterId || a.clusterId !== caller.clusterId)
    throw new AppError('CONFLICT', `agent '${a.name}' is not enrolled in a cluster (enroll it again)`);
  return { ...a, clusterId: a.clusterId };
}

const toolsOf = (capabilities: string[], disabled: string[]): TTool[] =>
  TOOLS.filter(
    (t) =>
      capabilities.includes(TOOL_BINARIES[t]) &&
      !disabled.includes(t) &&
      !disabled.includes(TOOL_BINARIES[t]),
  );

const num = (v: unknown, d: number) => (typeof v === 'number' && Number.isFinite(v) ? v : d);

async function toJob(deps: TDeps, run: TRunRow, leaseS: number): Promise<TJob | null> {
  const { target: _redacted, durationS, warmupS, ...params } = (run.params ?? {}) as Record<string, unknown>;
  void _redacted;
  const w = run.workloadId ? await getWorkload(deps.db, run.organizationId, run.workloadId) : null;
  if (!w) return null;
  return {
    id: run.id,
    tool: run.tool as TTool,
    workload: w.name,
    workloadVersion: run.workloadVersion ?? w.version,
    params,
    // The one place the sealed target is opened: the job handed to the agent that claimed it.
    target: w.targetSecret ? openSecret(secretKeysOf(deps), w.targetSecret, w.organizationId) : w.target,
    durationS: num(durationS, w.durationS),
    warmupS: num(warmupS, w.warmupS),
    timeoutS: run.timeoutS,
    leaseS,
    leaseExpiresAt: (run.leaseExpiresAt ?? new Date()).toISOString(),
  };
}

/**
 * Long-poll for a job: claims the oldest queued run of the agent's cluster that one of its tools (heartbeat
 * capabilities minus disabled tools) can run, waiting up to `wait` seconds. `{job: null}` when none came.
 */
export async function claimJob(
  deps: TDeps,
  caller: TCaller,
  input: TJobClaimIn,
  opts: { signal?: AbortSignal } = {},
): Promise<{ job: TJob | null }> {
  const q = ZJobClaimIn.parse(input);
  const agent = await loadCallerAgent(deps, caller, q.agent);
  const n = polls.get(agent.id) ?? 0;
  if (n >= JOB_POLLS_PER_AGENT)
    throw new AppError(
      'TOO_MANY_REQUESTS',
      `agent '${agent.name}' already holds ${n} job long-polls; retry after one returns`,
      { retryAfterS: 5 },
    );
  polls.set(agent.id, n + 1);
  const waker = await openWaker(deps, caller.orgId).catch((err: unknown) => {
    release(agent.id);
    throw err;
  });
  try {
    return await pollForJob(deps, caller, agent, q, waker, opts.signal);
  } finally {
    waker.close();
    release(agent.id);
  }
}

function release(agentId: string) {
  const n = (polls.get(agentId) ?? 1) - 1;
  if (n > 0) polls.set(agentId, n);
  else polls.delete(agentId);
}

async function pollForJob(
  deps: TDeps,
  caller: TCaller,
  agent: Awaited<ReturnType<typeof loadCallerAgent>>,
  q: ReturnType<typeof ZJobClaimIn.parse>,
  waker: Awaited<ReturnType<typeof openWaker>>,
  signal: AbortSignal | undefined,
): Promise<{ job: TJob | null }> {
  const disabled = (q.disabled ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .slice(0, 16);
  if (q.disabled !== undefined && disabled.join(',') !== agent.disabledTools.join(','))
    await setAgentDisabledTools(deps.db, agent.id, disabled);
  const tools = toolsOf(agent.capabilities, q.disabled !== undefined ? disabled : agent.disabledTools);
  const deadline = Date.now() + q.wait * 1000;
  for (;;) {
    const run = await claimNextJob(deps.db, {
      orgId: caller.orgId,
      clusterId: agent.clusterId,
      agentId: agent.id,
      tools,
      leaseS: q.lease,
    });
    if (run) {
      const job = await toJob(deps, run, q.lease);
      if (job) {
        await audit(deps, caller, {
          action: 'run.claim',
          targetId: run.id,
          data: { agent: agent.name },
        });
        return { job };
      }
      await finishHeldJob(
        deps.db,
        { orgId: caller.orgId, id: run.id, agentId: agent.id },
        {
          status: 'failed',
          exitCode: null,
          error: 'the workload was deleted before an agent claimed the run',
        },
      );
      continue;
    }
    const left = deadline - Date.now();
    if (left <= 0 || signal?.aborted) return { job: null };
    await waker.wait(Math.min(JOB_RECHECK_MS, left), signal);
  }
}

async function held(deps: TDeps, caller: TCaller, id: string, agentName: string | undefined) {
  const agent = await loadCallerAgent(deps, caller, agentName);
  const run = await getHeldJob(deps.db, caller.orgId, id, agent.id);
  if (!run) {
    const r = await getRun(deps.db, caller.orgId, id);
    if (!r || r.clusterId !== agent.clusterId) throw notFound(`run '${id}'`);
    throw new AppError('CONFLICT', `run '${id}' is not held by agent '${agent.name}' (status ${r.status})`, {
      status: r.status,
    });
  }
  return { agent, run };
}

/** Renews the lease (and marks the run running once the tool started); tells the agent about a cancel. */
export async function renewLease(
  deps: TDeps,
  caller: TCaller,
  input: { id: string; agent?: string; lease?: number; running?: boolean; machine?: TMachine },
): Promise<TJobLeaseOut> {
  const q = ZJobLeaseIn.parse(input);
  const { agent } = await held(deps, caller, q.id, q.agent);
  const r = await renewJobLease(deps.db, {
    orgId: caller.orgId,
    id: q.id,
    agentId: agent.id,
    leaseS: q.lease,
    running: q.running,
    machine: q.machine ? { value: q.machine, kind: getMachineKind(q.machine) } : undefined,
  });
  if (!r) throw new AppError('CONFLICT', `run '${q.id}' is no longer held by agent '${agent.name}'`);
  return {
    cancelRequested: r.cancelRequested,
    status: r.status,
    leaseExpiresAt: r.leaseExpiresAt?.toISOString() ?? null,
  };
}

/** The agent's raw tool output, parsed and stored by the runs service. */
export async function postJobOutput(
  deps: TDeps,
  caller: TCaller,
  input: { id: string; agent?: string; output: string },
): Promise<TRunOutputResult> {
  const { run } = await held(deps, caller, input.id, input.agent);
  const token = caller as Extract<TCaller, { kind: 'token' }>;
  // Holding the lease entitles the agent to write this run's results, whatever else its token may do.
  const writer: TCaller = { ...token, scopes: [...new Set([...token.scopes, 'runs:write' as const])] };
  return addRunOutput(deps, writer, {
    id: run.id,
    output: input.output,
    tool: run.tool as TTool,
  });
}

export async function finishJob(deps: TDeps, caller: TCaller, input: TJobFinishIn) {
  const q = ZJobFinishIn.parse(input);
  const { agent, run } = await held(deps, caller, q.id, q.agent);
  const done = await finishHeldJob(
    deps.db,
    { orgId: caller.orgId, id: q.id, agentId: agent.id },
    q.status === 'succeeded'
      ? finalStatus(run, q)
      : { status: q.status, exitCode: q.exitCode ?? null, error: q.error ?? null },
  );
  if (!done) throw new AppError('CONFLICT', `run '${q.id}' is already finished`);
  await audit(deps, caller, {
    action: 'run.finish',
    targetId: q.id,
    data: { status: q.status, exitCode: q.exitCode ?? null, agent: agent.name },
  });
  return onRunFinished(deps, toRunDto(done), caller.orgId);
}

/** Cancel from the UI/API: a queued run ends at once, a claimed/running one is stopped by its agent. */
export async function cancelRun(
  deps: TDeps,
  caller: TCaller,
  id: string,
): Promise<{ id: string; status: TRunStatus; cancelRequested: boolean }> {
  assertCan(caller, { run: ['cancel'] });
  const before = await getRun(deps.db, caller.orgId, id);
  if (!before || (caller.kind === 'token' && caller.clusterId && before.clusterId !== caller.clusterId))
    throw notFound(`run '${id}'`);
  if (before.finishedAt) throw new AppError('CONFLICT', `run '${id}' is already finished (${before.status})`);
  if (before.status !== 'queued' && !before.agentId)
    throw new AppError('CONFLICT', `run '${id}' was posted by CI, not queued; it cannot be cancelled here`);
  const r = (await requestRunCancel(deps.db, caller.orgId, id))!;
  await audit(deps, caller, {
    action: 'run.cancel',
    targetId: id,
    data: { from: before.status, to: r.status },
  });
  if (r.finishedAt) await onRunFinished(deps, toRunDto(r), caller.orgId).catch(() => undefined);
  return { id, status: r.status, cancelRequested: r.cancelRequested };
}

/** Status, lease and live sample count of a run (the run page polls this while it is open). */
export async function getRunProgress(deps: TDeps, caller: TCaller, id: string): Promise<TRunProgress> {
  assertCan(caller, { run: ['read'] });
  const r = await loadRun(deps, caller, id);
  let samples = 0;
  try {
    const rows = await getBenchSamples(deps.ch, caller.orgId, [id]);
    samples = new Set(rows.map((x) => x.elapsed_s)).size;
  } catch {
    /* ClickHouse briefly unavailable: report 0 */
  }
  const agent = r.agentId ? (await deps.db.agent.findUnique({ where: { id: r.agentId } }))?.name : null;
  return {
    id: r.id,
    status: r.status,
    cancelRequested: r.cancelRequested,
    forced: r.forced,
    agent: agent ?? null,
    samples,
    queuedAt: r.queuedAt?.toISOString() ?? null,
    startedAt: r.startedAt.toISOString(),
    finishedAt: r.finishedAt?.toISOString() ?? null,
    leaseExpiresAt: r.leaseExpiresAt?.toISOString() ?? null,
    timeoutS: r.timeoutS,
    error: r.error,
  };
}

/** One sweeper pass: ends runs whose lease expired or whose hard timeout passed (see expireJobs). */
export async function sweepJobs(deps: TDeps, now = new Date()) {
  const ended = await expireJobs(deps.db, now);
  for (const e of ended) {
    await writeAudit(deps.db, e.orgId, {
      actorType: 'system',
      action: 'run.expire',
      targetType: 'run',
      targetId: e.id,
      data: { status: e.status, error: e.error },
    });
    const r = await getRun(deps.db, e.orgId, e.id);
    if (r) await onRunFinished(deps, toRunDto(r), e.orgId).catch(() => undefined);
  }
  return ended;
}

/** Runs sweepJobs every `intervalMs`; returns the stop function (await it on shutdown). */
export function startJobSweeper(
  deps: TDeps,
  opts: { intervalMs?: number; onEnded?: (e: { id: string; orgId: string; status: string }) => void } = {},
): () => Promise<void> {
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  let failing = false;
  const timer = setInterval(() => {
    running = running.then(async () => {
      if (stopped) return;
      try {
        for (const e of await sweepJobs(deps)) opts.onEnded?.(e);
        if (failing) logOf(deps).info('job sweeper recovered');
        failing = false;
      } catch (err) {
        // Once per outage, not every tick.
        if (!failing) logOf(deps).warn({ err: (err as Error).message.trim() }, 'job sweeper failed');
        failing = true;
      }
    });
  }, opts.intervalMs ?? 2000);
  timer.unref?.();
  return async () => {
    stopped = true;
    clearInterval(timer);
    await running;
  };
}
