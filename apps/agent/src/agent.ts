/** The collector: runs every input each interval, writes one batch to the outbox, ships it. */
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { INGEST_MAX_SAMPLES, type TInputState, type TSample } from '@clusterscope/schema';
import type { TAgentConfig } from './config';
import { Delivery } from './delivery';
import { jobLimitsOf } from './jobs/config';
import { INPUTS } from './inputs/registry';
import type { Input, InputContext, InputDefinition } from './inputs/types';
import { errorMessage, type Logger } from './lib/log';
import { toOneLineError } from './lib/one-line-error';
import { Metrics } from './metrics';
import { Outbox } from './outbox';
import { AGENT_VERSION } from './version';

/** Samples per batch (well below INGEST_MAX_SAMPLES and the 10 MB body limit). */
const BATCH_SAMPLES = Math.min(10_000, INGEST_MAX_SAMPLES);

export interface AgentDeps {
  config: TAgentConfig;
  logger: Logger;
  pathEnv?: string;
  metrics?: Metrics;
}

/** Instantiate enabled inputs from the config (absent → enabledByDefault, false → off). */
export function createInputs(config: TAgentConfig, ctx: InputContext): Input[] {
  const out: Input[] = [];
  const inputsCfg = config.inputs as Record<string, unknown>;
  for (const def of INPUTS as readonly InputDefinition[]) {
    const raw = inputsCfg[def.name];
    if (raw === false) continue;
    if (raw === undefined && !def.enabledByDefault) continue;
    const cfg = raw === undefined ? def.config.parse({}) : raw;
    out.push(def.create(cfg, { ...ctx, logger: ctx.logger.child({ input: def.name }) }));
  }
  return out;
}

export class Agent {
  readonly metrics: Metrics;
  readonly outbox: Outbox;
  readonly delivery: Delivery;
  readonly inputs: Input[];
  private timer: NodeJS.Timeout | undefined;
  private collecting: Promise<unknown> | undefined;
  private readonly lastError = new Map<string, string>();
  private readonly startedAt = Date.now();
  /** Shared with the inputs: the heartbeat reports what the prometheus input dropped. */
  readonly counters = { metricsDropped: 0 };
  /** Inputs whose last collection failed or, while configured, produced nothing (for `--once`). */
  readonly failedInputs = new Set<string>();
  /** Per input: the current run of failed collections (absent while it succeeds). */
  private readonly failing = new Map<string, { error: string; since: number; failures: number }>();
  /** Configured values that must never appear in a reported error (request header values). */
  private readonly secrets: string[];

  constructor(private readonly deps: AgentDeps) {
    const { config, logger } = deps;
    this.metrics = deps.metrics ?? new Metrics();
    this.outbox = new Outbox({
      dir: config.outbox.dir,
      maxBytes: config.outbox.max_bytes,
      segmentBytes: Math.min(
        config.outbox.segment_bytes,
        Math.max(64 * 1024, Math.floor(config.outbox.max_bytes / 8)),
      ),
      logger: logger.child({ component: 'outbox' }),
    });
    this.delivery = new Delivery(this.outbox, {
      url: config.url,
      token: config.token,
      timeoutMs: config.delivery.timeout,
      backoffInitialMs: config.delivery.backoff_initial,
      backoffMaxMs: config.delivery.backoff_max,
      logger: logger.child({ component: 'delivery' }),
      metrics: this.metrics,
      userAgent: `clusterscope-agent/${AGENT_VERSION}`,
    });
    const crdb = (config.inputs as Record<string, unknown>).cockroachdb as
      | { urls: string[]; headers: Record<string, string>; timeout: number }
      | false
      | undefined;
    this.secrets = crdb ? Object.values(crdb.headers) : [];
    this.inputs = createInputs(config, {
      cockroachdb: crdb ? { urls: crdb.urls, headers: crdb.headers, timeout: crdb.timeout } : undefined,
      counters: this.counters,
      host: config.host,
      nodeId: config.node_id,
      version: AGENT_VERSION,
      startedAt: this.startedAt,
      logger,
      pathEnv: deps.pathEnv,
      outboxStats: () => this.outbox.stats(),
      jobLimits: config.jobs.enabled ? jobLimitsOf(config.jobs) : undefined,
    });
  }

  open(): void {
    this.outbox.open();
    this.delivery.refreshGauges();
    const s = this.outbox.stats();
    if (s.pending > 0) this.deps.logger.info('outbox has pending batches; replaying in order', s);
  }

  /** Run every input once; append the batch(es) durably. Returns the number of samples. */
  async collectOnce(now = Date.now()): Promise<number> {
    const { logger, config } = this.deps;
    const m = this.metrics;
    const timeout = Math.max(1000, Math.floor(config.interval * 0.9));
    const results = await Promise.all(
      this.inputs.map(async (input) => {
        const t0 = performance.now();
        try {
          const samples = await withTimeout(
            input.collect(now),
            timeout,
            `${input.name} collection timed out after ${timeout} ms`,
          );
          m.inc('clusterscope_agent_samples_collected_total', 'Samples collected per input', samples.length, {
            input: input.name,
          });
          if (samples.length === 0 && input.active !== false) this.failedInputs.add(input.name);
          else this.failedInputs.delete(input.name);
          if (this.lastError.delete(input.name)) logger.info('input recovered', { input: input.name });
          this.failing.delete(input.name);
          return samples;
        } catch (e) {
          const msg = errorMessage(e);
          this.failedInputs.add(input.name);
          m.inc('clusterscope_agent_collect_errors_total', 'Failed collections per input', 1, {
            input: input.name,
          });
          if (this.lastError.get(input.name) !== msg)
            logger.warn('input failed', { input: input.name, err: msg });
          this.lastError.set(input.name, msg);
          const prev = this.failing.get(input.name);
          this.failing.set(input.name, {
            error: toOneLineError(msg, this.secrets),
            since: prev?.since ?? now,
            failures: (prev?.failures ?? 0) + 1,
          });
          return [] as TSample[];
        } finally {
          m.set(
            'clusterscope_agent_collection_duration_seconds',
            'Duration of the last collection per input',
            (performance.now() - t0) / 1000,
            {
              input: input.name,
            },
          );
        }
      }),
    );
    const samples = results.flat();
    // The heartbeat carries this collection's outcome of every input (it runs alongside them).
    const inputs = this.inputStates();
    for (const s of samples) if (s.kind === 'heartbeat') s.inputs = inputs;
    for (let i = 0; i < samples.length; i += BATCH_SAMPLES) this.enqueue(samples.slice(i, i + BATCH_SAMPLES));
    this.delivery.refreshGauges();
    return samples.length;
  }

  /** Each input's state after the latest collection, as the heartbeat reports it. */
  inputStates(): TInputState[] {
    return this.inputs.map((input): TInputState => {
      const f = this.failing.get(input.name);
      return f
        ? { input: input.name, state: 'failing', error: f.error, since: f.since, failures: f.failures }
        : { input: input.name, state: 'ok', error: null, since: null, failures: 0 };
    });
  }

  /** Queues samples produced outside the inputs (benchmark jobs) for durable delivery. */
  enqueueSamples(samples: TSample[]): void {
    for (let i = 0; i < samples.length; i += BATCH_SAMPLES) this.enqueue(samples.slice(i, i + BATCH_SAMPLES));
  }

  private enqueue(samples: TSample[]): void {
    const { config } = this.deps;
    const batchId = randomUUID();
    const batch = {
      batchId,
      cluster: config.cluster,
      agent: { name: config.host, version: AGENT_VERSION },
      samples,
    };
    const body = gzipSync(JSON.stringify(batch), { level: 6 });
    this.outbox.append(batchId, samples.length, body);
    this.deps.logger.debug('batch enqueued', { batchId, samples: samples.length, bytes: body.length });
    this.metrics.inc('clusterscope_agent_batches_enqueued_total', 'Batches written to the outbox');
    this.delivery.wake();
  }

  /** Collect on interval boundaries and deliver in the background. */
  start(): void {
    this.delivery.start();
    const interval = this.deps.config.interval;
    let lastSlot = 0;
    const tick = () => {
      const now = Date.now();
      // The interval boundary this collection stands for (never the same one twice).
      const slot = Math.max(now + interval - (now % interval), lastSlot + interval);
      lastSlot = slot;
      this.timer = setTimeout(() => {
        if (this.collecting) {
          this.deps.logger.warn('previous collection still running; skipping this interval', { slot });
        } else {
          this.collecting = this.collectOnce(slot)
            .catch((e) => this.deps.logger.error('collection failed', { err: errorMessage(e) }))
            .finally(() => (this.collecting = undefined));
        }
        tick();
      }, slot - now);
    };
    this.collecting = this.collectOnce()
      .catch((e) => this.deps.logger.error('collection failed', { err: errorMessage(e) }))
      .finally(() => (this.collecting = undefined));
    tick();
  }

  async stop(graceMs = 5000): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    await Promise.race([
      Promise.all([this.collecting, this.delivery.stop()]),
      new Promise((r) => setTimeout(r, graceMs).unref()),
    ]);
    this.outbox.close();
  }

  uptimeS(): number {
    return (Date.now() - this.startedAt) / 1000;
  }
}

function withTimeout<T>(p: Promise<T>, ms: number, msg: string): Promise<T> {
  let t: NodeJS.Timeout;
  return Promise.race([
    p,
    new Promise<never>((_, rej) => (t = setTimeout(() => rej(new Error(msg)), ms))),
  ]).finally(() => clearTimeout(t));
}
