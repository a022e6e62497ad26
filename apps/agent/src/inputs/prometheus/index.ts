import { readFileSync } from 'node:fs';
import type { TMetricSample } from '@clusterscope/schema';
import { httpRequest } from '../../lib/http';
import { errorMessage } from '../../lib/log';
import { defineInput, type CheckResult, type InputContext } from '../types';
import { ZPrometheusConfig, type TPrometheusConfig, type TTarget, type TTls } from './config';
import { createPrometheusParser, parsePrometheusText, type ParseStats } from './parse';
import { streamGet } from './scrape';
import { compileFilter, SeriesLimiter } from './series';

interface ResolvedTarget {
  url: string;
  /** host:port, sent as the sample's host. */
  instance: string;
  intervalMs: number | undefined;
  timeoutMs: number;
  headers: Record<string, string>;
  labels: Record<string, string>;
  tls: TTls | undefined;
  /** CockroachDB node: its id comes from `/_status/details/local` when the metrics carry no node_id label. */
  cockroach: boolean;
}

function authHeaders(t: Partial<TTarget>): Record<string, string> {
  const bearer =
    t.bearer_token ?? (t.bearer_token_file ? readFileSync(t.bearer_token_file, 'utf8').trim() : '');
  if (bearer) return { authorization: `Bearer ${bearer}` };
  if (t.basic_auth) {
    const pw =
      t.basic_auth.password ??
      (t.basic_auth.password_file ? readFileSync(t.basic_auth.password_file, 'utf8').trim() : '');
    return {
      authorization: `Basic ${Buffer.from(`${t.basic_auth.username}:${pw}`).toString('base64')}`,
    };
  }
  return {};
}

function tlsOptions(tls: TTls | undefined) {
  if (!tls) return undefined;
  return {
    ca: tls.ca_file ? readFileSync(tls.ca_file) : undefined,
    cert: tls.cert_file ? readFileSync(tls.cert_file) : undefined,
    key: tls.key_file ? readFileSync(tls.key_file) : undefined,
    servername: tls.server_name,
    rejectUnauthorized: !tls.insecure_skip_verify,
  };
}

/** Explicit targets plus, for CockroachDB, every configured node's `/_status/vars`. */
export function resolveTargets(
  cfg: TPrometheusConfig,
  ctx: Pick<InputContext, 'cockroachdb'>,
): ResolvedTarget[] {
  const out: ResolvedTarget[] = [];
  if (cfg.cockroachdb && ctx.cockroachdb) {
    for (const base of ctx.cockroachdb.urls) {
      const url = base.replace(/\/+$/, '') + '/_status/vars';
      out.push({
        url,
        instance: new URL(url).host,
        intervalMs: undefined,
        timeoutMs: ctx.cockroachdb.timeout,
        headers: { ...ctx.cockroachdb.headers },
        labels: { ...cfg.labels },
        tls: cfg.tls,
        cockroach: true,
      });
    }
  }
  for (const t of cfg.targets) {
    out.push({
      url: t.url,
      instance: new URL(t.url).host,
      intervalMs: t.interval,
      timeoutMs: t.timeout ?? cfg.timeout,
      headers: { ...t.headers, ...authHeaders(t) },
      labels: { ...cfg.labels, ...t.labels },
      tls: t.tls ?? cfg.tls,
      cockroach: false,
    });
  }
  return out;
}

const ACCEPT = 'text/plain;version=0.0.4, application/openmetrics-text;q=0.5, */*;q=0.1';

async function fetchText(t: ResolvedTarget, path?: string): Promise<string> {
  const url = path ? new URL(path, t.url).toString() : t.url;
  const res = await httpRequest(url, {
    headers: {
      accept: 'text/plain;version=0.0.4, application/openmetrics-text;q=0.5, */*;q=0.1',
      ...t.headers,
    },
    timeoutMs: t.timeoutMs,
    maxBodyBytes: 16 * 1024 * 1024,
    tls: tlsOptions(t.tls),
  });
  if (res.status !== 200) throw new Error(`GET ${url}: HTTP ${res.status} ${res.body.slice(0, 200)}`);
  return res.body;
}

/** Ingest limits (packages/schema ZMetricSample): a series outside them would get the whole batch refused. */
const MAX_NAME = 200;
const MAX_LABELS = 24;
const MAX_LABEL_VALUE = 256;

/** Drops reserved `__` labels, truncates long values; false when the series cannot be sent at all. */
function fitsIngest(name: string, labels: Record<string, string>): boolean {
  if (name.length > MAX_NAME) return false;
  let n = 0;
  for (const k of Object.keys(labels)) {
    if (k.startsWith('__') || k.length > 100) {
      delete labels[k];
      continue;
    }
    if (labels[k].length > MAX_LABEL_VALUE) labels[k] = labels[k].slice(0, MAX_LABEL_VALUE);
    n++;
  }
  return n <= MAX_LABELS;
}

/** Counters shared with the heartbeat (cumulative since start). */
export interface DropCounters {
  metricsDropped: number;
}

type TSampleOpts = {
  now: number;
  instance: string;
  nodeId: number | null;
  labels: Record<string, string>;
  accept: (family: string) => boolean;
  limiter: SeriesLimiter;
};

/**
 * A streaming parser that turns exposition text into metric samples: allowlist/include/exclude, NaN dropped,
 * ±Inf dropped and counted, series cap enforced by `limiter` (refused series counted in `dropped`).
 */
function metricSink(opts: TSampleOpts) {
  const samples: TMetricSample[] = [];
  const out = { samples, dropped: 0, nonFinite: 0 };
  const parser = createPrometheusParser((s) => {
    if (Number.isNaN(s.value)) return;
    if (!Number.isFinite(s.value)) {
      out.nonFinite++;
      return;
    }
    const labels = { ...s.labels, ...opts.labels };
    let nodeId = opts.nodeId;
    if (labels.node_id !== undefined && /^\d+$/.test(labels.node_id)) {
      nodeId = Number(labels.node_id);
      delete labels.node_id;
    }
    if (!fitsIngest(s.name, labels) || !opts.limiter.admit(opts.instance, s.name, labels, opts.now)) {
      out.dropped++;
      return;
    }
    samples.push({
      kind: 'metric',
      ts: opts.now,
      node_id: nodeId,
      host: opts.instance,
      name: s.name,
      type: s.type,
      labels,
      value: s.value,
    });
  }, opts.accept);
  return { out, push: parser.push, end: () => ({ ...out, stats: parser.end() }) };
}

/** One scrape's text → metric samples (see metricSink). */
export function toMetricSamples(
  text: string,
  opts: TSampleOpts,
): { samples: TMetricSample[]; stats: ParseStats; dropped: number; nonFinite: number } {
  const sink = metricSink(opts);
  sink.push(text);
  return sink.end();
}

/** Targets scraped at once: bounds the bodies in flight (memory) while a slow node delays only its slot. */
const CONCURRENCY = 3;

async function mapLimited<T, R>(
  items: T[],
  limit: number,
  fn: (t: T) => Promise<R>,
): Promise<PromiseSettledResult<R>[]> {
  const out: PromiseSettledResult<R>[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      try {
        out[i] = { status: 'fulfilled', value: await fn(items[i]) };
      } catch (reason) {
        out[i] = { status: 'rejected', reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

export const prometheusInput = defineInput({
  name: 'prometheus',
  // On by default: with CockroachDB URLs configured it scrapes their /_status/vars; otherwise it has no targets.
  enabledByDefault: true,
  config: ZPrometheusConfig,
  create(cfg, ctx) {
    const targets = resolveTargets(cfg, ctx);
    const accept = compileFilter(cfg);
    const limiter = new SeriesLimiter(cfg.max_series);
    const counters = ctx.counters ?? { metricsDropped: 0 };
    const lastScrape = new Map<string, number>();
    const nodeIds = new Map<string, number | null>();
    let lastDropLog = 0;

    async function nodeIdOf(t: ResolvedTarget): Promise<number | null> {
      if (!t.cockroach) return null;
      if (nodeIds.has(t.url)) return nodeIds.get(t.url)!;
      try {
        const body = JSON.parse(await fetchText(t, '/_status/details/local')) as Record<string, unknown>;
        const id = Number(body.nodeId ?? body.node_id);
        const v = Number.isInteger(id) && id > 0 ? id : null;
        nodeIds.set(t.url, v);
        return v;
      } catch {
        return null; // retried next scrape; node_id labels (v23+) make it unnecessary
      }
    }

    async function scrape(t: ResolvedTarget, now: number) {
      const nodeId = await nodeIdOf(t);
      const sink = metricSink({ now, instance: t.instance, nodeId, labels: t.labels, accept, limiter });
      await streamGet(
        {
          url: t.url,
          headers: { accept: ACCEPT, ...t.headers },
          timeoutMs: t.timeoutMs,
          tls: tlsOptions(t.tls),
        },
        sink.push,
      );
      const r = sink.end();
      if (r.stats.invalid > 0)
        ctx.logger.debug('prometheus: skipped invalid lines', {
          url: t.url,
          lines: r.stats.invalid,
          first: r.stats.firstInvalid,
        });
      return r;
    }

    return {
      active: targets.length > 0,
      async collect(now) {
        const due = targets.filter((t) => {
          const last = lastScrape.get(t.url);
          // 1 s slack: collections are aligned to interval boundaries but fire a little late or early.
          return last === undefined || t.intervalMs === undefined || now - last >= t.intervalMs - 1000;
        });
        if (due.length === 0) return [];
        limiter.expire(now);
        const results = await mapLimited(due, CONCURRENCY, (t) => scrape(t, now));
        const out: TMetricSample[] = [];
        const errors: string[] = [];
        let dropped = 0;
        results.forEach((r, i) => {
          if (r.status === 'rejected') {
            errors.push(errorMessage(r.reason));
            return;
          }
          lastScrape.set(due[i].url, now);
          out.push(...r.value.samples);
          dropped += r.value.dropped + r.value.nonFinite;
          if (r.value.nonFinite > 0)
            ctx.logger.debug('prometheus: dropped ±Inf values', {
              url: due[i].url,
              count: r.value.nonFinite,
            });
        });
        if (dropped > 0) {
          counters.metricsDropped += dropped;
          if (now - lastDropLog >= 60_000) {
            lastDropLog = now;
            ctx.logger.warn('prometheus: series dropped (max_series reached or ±Inf values)', {
              dropped,
              total_dropped: counters.metricsDropped,
              max_series: cfg.max_series,
              series: limiter.size,
            });
          }
        }
        if (errors.length === due.length) throw new Error(`no scrape target answered: ${errors.join('; ')}`);
        for (const e of errors) ctx.logger.warn('prometheus: scrape failed', { err: e });
        return out;
      },
      async check() {
        const out: CheckResult[] = [];
        for (const t of targets) {
          try {
            const text = await fetchText(t);
            let n = 0;
            const stats = parsePrometheusText(text, () => n++, accept);
            out.push({
              name: `prometheus ${t.url}`,
              ok: stats.samples > 0,
              detail: `${n} samples kept of ${stats.samples} parsed${stats.invalid ? `, ${stats.invalid} invalid lines` : ''}`,
            });
          } catch (e) {
            out.push({ name: `prometheus ${t.url}`, ok: false, detail: errorMessage(e) });
          }
        }
        return out;
      },
    };
  },
});
