import { gunzipSync } from 'node:zlib';
import type { z } from 'zod';
import {
  ZIngestBatch,
  type THeartbeatSample,
  type TIngestBatch,
  type TSample,
  type TSampleKind,
} from '@clusterscope/schema';

/**
 * The CPU-heavy steps of POST /api/v1/ingest as pure functions, so they can run on worker threads
 * (see ingest-pool.ts): inflate + JSON.parse + zod here, TabSeparated encoding in tsdb/encode.
 * Imports neither Prisma nor a ClickHouse client, so a worker bundle stays small.
 */

/** Most issues listed in a 400 answer; the rest are counted. */
export const MAX_ISSUES = 100;

export type TIssueList = { issues: string[]; total: number };

/** Zod issues as `samples.3.replicas: message` lines, capped at MAX_ISSUES. */
export function formatIssues(error: z.ZodError, prefix: readonly PropertyKey[] = []): TIssueList {
  const all = error.issues;
  return {
    total: all.length,
    issues: all.slice(0, MAX_ISSUES).map((i) => {
      const path = [...prefix, ...i.path].map(String).join('.');
      return `${path || '(body)'}: ${i.message}`;
    }),
  };
}

/** Validates an already JSON-parsed ingest body. */
export function validateIngestBatch(
  body: unknown,
): { ok: true; batch: TIngestBatch } | ({ ok: false } & TIssueList) {
  const r = ZIngestBatch.safeParse(body);
  return r.success ? { ok: true, batch: r.data } : { ok: false, ...formatIssues(r.error) };
}

/** What the request handler needs to know about a valid batch before it is encoded. */
export interface TBatchHead {
  batchId: string;
  cluster?: string;
  agent?: { name: string; version: string };
  count: number;
  kinds: TSampleKind[];
  /** Runs that got bench_sample rows (for live updates). */
  runIds: string[];
  /** The newest heartbeat sample, if any. */
  heartbeat: THeartbeatSample | null;
  /** The oldest node_status/cgroup_usage/metric sample time (the series cache: a late one invalidates). */
  oldest: number | null;
}

export type TDecodeError = { status: 400 | 413; error: string; issues?: string[]; issueCount?: number };
export type TDecoded = { ok: true; batch: TIngestBatch; head: TBatchHead } | ({ ok: false } & TDecodeError);

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(n < 1024 * 1024 ? 3 : 1)} MB`;

/** Body bytes (gzip when `gz`) → a validated batch, or the 400/413 answer naming what is wrong. */
export function decodeBatch(bytes: Uint8Array, gz: boolean, maxBytes: number): TDecoded {
  let raw: Buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (gz) {
    try {
      raw = gunzipSync(raw, { maxOutputLength: maxBytes });
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError)
        return {
          ok: false,
          status: 413,
          error: `decompressed body exceeds INGEST_MAX_BYTES (${mb(maxBytes)})`,
        };
      return { ok: false, status: 400, error: `body is not valid gzip: ${(err as Error).message}` };
    }
  }
  if (raw.length === 0) return { ok: false, status: 400, error: 'empty body: expected a JSON ingest batch' };
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch (err) {
    return { ok: false, status: 400, error: `body is not valid JSON: ${(err as Error).message}` };
  }
  const v = validateIngestBatch(body);
  if (!v.ok) {
    const more = v.total > v.issues.length ? ` (showing the first ${v.issues.length})` : '';
    return {
      ok: false,
      status: 400,
      error: `invalid ingest batch: ${v.total} issue(s)${more}`,
      issues: v.issues,
      issueCount: v.total,
    };
  }
  return { ok: true, batch: v.batch, head: headOf(v.batch) };
}

export function headOf(b: TIngestBatch): TBatchHead {
  return {
    batchId: b.batchId,
    cluster: b.cluster,
    agent: b.agent,
    count: b.samples.length,
    ...summarizeSamples(b.samples),
  };
}

export function summarizeSamples(samples: readonly TSample[]) {
  const kinds = new Set<TSampleKind>();
  const runIds = new Set<string>();
  let heartbeat: THeartbeatSample | null = null;
  let oldest: number | null = null;
  for (const s of samples) {
    kinds.add(s.kind);
    if (s.kind === 'bench_sample') runIds.add(s.run_id);
    else if (s.kind === 'heartbeat' && (!heartbeat || s.ts >= heartbeat.ts)) heartbeat = s;
    else if (
      (s.kind === 'node_status' || s.kind === 'cgroup_usage' || s.kind === 'metric') &&
      (oldest === null || s.ts < oldest)
    )
      oldest = s.ts;
  }
  return { kinds: [...kinds], runIds: [...runIds], heartbeat, oldest };
}
