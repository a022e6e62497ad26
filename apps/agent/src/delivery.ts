/**
 * Ships outbox batches to POST /api/v1/ingest, one at a time, oldest first.
 *
 * Status handling:
 * - 2xx → acknowledged (the server answers only after ClickHouse confirmed; a retried batchId is
 *   accepted once, so resending after a crash is safe).
 * - 429 → wait Retry-After (or backoff), retry the same batch.
 * - 401/403/404/405 → configuration problem (bad/revoked token, wrong URL): the batch is kept and
 *   retried with backoff while an error is logged every attempt. Quarantining here would silently
 *   discard every batch until an operator fixes the token; the bounded outbox evicts instead.
 * - other 4xx (400 invalid items, 413 too large, 422…) → this batch can never succeed: it moves to
 *   quarantine/ with the server's message and the queue moves on.
 * - 408, 5xx, network errors → exponential backoff with jitter.
 */
import { httpRequest, parseRetryAfter, UnreachableError } from './lib/http';
import { errorMessage, type Logger } from './lib/log';
import type { Metrics } from './metrics';
import type { Outbox, OutboxRecord } from './outbox';

export interface DeliveryOptions {
  url: string;
  token: string;
  timeoutMs: number;
  backoffInitialMs: number;
  backoffMaxMs: number;
  logger: Logger;
  metrics: Metrics;
  userAgent: string;
}

export type TSendOutcome =
  | { kind: 'accepted'; duplicate: boolean }
  | { kind: 'retry'; afterMs?: number; reason: string; config?: boolean }
  | { kind: 'reject'; status: number; message: string };

const CONFIG_STATUSES = new Set([401, 403, 404, 405]);

export function ingestUrl(base: string): string {
  return base.replace(/\/+$/, '') + '/api/v1/ingest';
}

export function classifyResponse(status: number, body: string, retryAfter?: number): TSendOutcome {
  if (status >= 200 && status < 300) {
    let duplicate = false;
    try {
      duplicate = (JSON.parse(body) as { duplicate?: unknown }).duplicate === true;
    } catch {
      /* body is informational */
    }
    return { kind: 'accepted', duplicate };
  }
  const msg = body.slice(0, 2000);
  if (status === 429) return { kind: 'retry', afterMs: retryAfter, reason: `HTTP 429 ${msg}` };
  if (CONFIG_STATUSES.has(status))
    return { kind: 'retry', afterMs: retryAfter, reason: `HTTP ${status} ${msg}`, config: true };
  if (status === 408 || status >= 500 || status < 200)
    return { kind: 'retry', afterMs: retryAfter, reason: `HTTP ${status} ${msg}` };
  return { kind: 'reject', status, message: msg };
}

/** Full-jitter exponential backoff: uniform in [d/2, d], d = min(max, initial·2^attempt). */
export function backoffMs(attempt: number, initial: number, max: number, rnd = Math.random): number {
  const d = Math.min(max, initial * 2 ** Math.min(attempt, 30));
  return Math.round(d / 2 + (rnd() * d) / 2);
}

export class Delivery {
  private running = false;
  private wakeup: (() => void) | undefined;
  /** A wake() that arrived while no sleep was pending (not lost). */
  private woken = false;
  private loop: Promise<void> | undefined;
  private attempt = 0;
  /** Epoch ms of the last 2xx (for --check/metrics). */
  lastSuccessAt = 0;

  constructor(
    private readonly outbox: Outbox,
    private readonly opts: DeliveryOptions,
  ) {}

  async send(rec: OutboxRecord): Promise<TSendOutcome> {
    try {
      const res = await httpRequest(ingestUrl(this.opts.url), {
        method: 'POST',
        headers: {
          authorization: `Bearer ${this.opts.token}`,
          'content-type': 'application/json',
          'content-encoding': 'gzip',
          'user-agent': this.opts.userAgent,
          'idempotency-key': rec.batchId,
        },
        body: rec.body,
        timeoutMs: this.opts.timeoutMs,
        maxBodyBytes: 64 * 1024,
      });
      return classifyResponse(res.status, res.body, parseRetryAfter(res.headers['retry-after']));
    } catch (e) {
      return { kind: 'retry', reason: e instanceof UnreachableError ? e.message : errorMessage(e) };
    }
  }

  /** Send the oldest pending batch once. Returns the outcome, or undefined if the outbox is empty. */
  async step(): Promise<TSendOutcome | undefined> {
    const rec = this.outbox.peek();
    if (!rec) return undefined;
    const { logger, metrics } = this.opts;
    const started = Date.now();
    const out = await this.send(rec);
    metrics.set(
      'clusterscope_agent_send_duration_seconds',
      'Duration of the last ingest request',
      (Date.now() - started) / 1000,
    );
    if (out.kind === 'accepted') {
      this.outbox.ack(rec);
      this.attempt = 0;
      this.lastSuccessAt = Date.now();
      metrics.inc('clusterscope_agent_batches_sent_total', 'Batches acknowledged by the server (2xx)');
      metrics.inc('clusterscope_agent_samples_sent_total', 'Samples in acknowledged batches', rec.samples);
      if (out.duplicate)
        metrics.inc('clusterscope_agent_batches_duplicate_total', 'Batches the server had already accepted');
      logger.debug('batch delivered', {
        batchId: rec.batchId,
        samples: rec.samples,
        duplicate: out.duplicate,
      });
    } else if (out.kind === 'reject') {
      const file = this.outbox.quarantine(rec, { status: out.status, message: out.message });
      this.attempt = 0;
      metrics.inc(
        'clusterscope_agent_batches_quarantined_total',
        'Batches rejected by the server (4xx) and moved to quarantine',
      );
      logger.error('batch rejected by server; quarantined', {
        batchId: rec.batchId,
        status: out.status,
        message: out.message,
        file,
      });
    } else {
      metrics.inc('clusterscope_agent_batches_failed_total', 'Failed ingest attempts (retried)');
      if (out.config)
        metrics.inc(
          'clusterscope_agent_auth_failures_total',
          'Ingest attempts refused as unauthorized/not found (check token and URL)',
        );
      const level = out.config ? 'error' : 'warn';
      logger[level](
        out.config
          ? 'ingest refused: check CLUSTERSCOPE_TOKEN / url (batch kept)'
          : 'ingest failed, will retry',
        {
          batchId: rec.batchId,
          reason: out.reason,
          attempt: this.attempt + 1,
        },
      );
    }
    this.refreshGauges();
    return out;
  }

  refreshGauges(): void {
    const s = this.outbox.stats();
    const m = this.opts.metrics;
    m.set('clusterscope_agent_outbox_bytes', 'Bytes of batches on disk', s.bytes);
    m.set('clusterscope_agent_outbox_pending_batches', 'Batches waiting to be delivered', s.pending);
    m.set(
      'clusterscope_agent_outbox_evictions_total',
      'Batches evicted because the outbox was full',
      s.evictions,
    );
  }

  /** Background loop until stop(). */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        this.woken = false;
        const out = await this.step();
        if (!this.running) break;
        if (out === undefined) {
          if (!this.woken) await this.sleep(Infinity);
        } else if (out.kind === 'retry') {
          const wait =
            out.afterMs ?? backoffMs(this.attempt, this.opts.backoffInitialMs, this.opts.backoffMaxMs);
          this.attempt++;
          await this.sleep(Math.min(wait, this.opts.backoffMaxMs));
        }
      }
    })();
  }

  /** New batch appended: resume if idle (does not cut a backoff short). */
  wake(): void {
    if (this.attempt !== 0) return;
    this.woken = true;
    this.wakeup?.();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = ms === Infinity ? undefined : setTimeout(done, ms);
      function done() {
        if (t) clearTimeout(t);
        resolve();
      }
      this.wakeup = () => {
        this.wakeup = undefined;
        done();
      };
    });
  }

  async stop(): Promise<void> {
    this.running = false;
    const w = this.wakeup;
    this.wakeup = undefined;
    w?.();
    await this.loop;
  }

  /** Try to deliver everything pending before `deadline` (for --once). True when the outbox is empty. */
  async drain(deadlineMs: number): Promise<boolean> {
    for (;;) {
      const out = await this.step();
      if (out === undefined) return true;
      if (out.kind === 'retry') {
        const wait =
          out.afterMs ?? backoffMs(this.attempt, this.opts.backoffInitialMs, this.opts.backoffMaxMs);
        this.attempt++;
        if (Date.now() + wait > deadlineMs) return false;
        await new Promise((r) => setTimeout(r, wait));
      }
    }
  }
}
