/** Client for the public REST API CI uses (/api/v1/runs…). */
import type { TMetric, TTool } from '@clusterscope/schema';
import { httpRequest, UnreachableError } from '../lib/http';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly url: string,
    readonly body: string,
  ) {
    super(`${url} answered HTTP ${status}: ${body.slice(0, 1000) || '(empty body)'}${hintFor(status)}`);
  }
}

function hintFor(status: number): string {
  if (status === 401) return '\n  → CLUSTERSCOPE_TOKEN is missing, invalid or revoked.';
  if (status === 403) return '\n  → the token lacks the "runs:write" scope or access to this cluster.';
  if (status === 404)
    return '\n  → check CLUSTERSCOPE_URL (it should be the Clusterscope base URL) and the cluster slug.';
  return '';
}

export interface TCreateRun {
  cluster: string;
  workload: string;
  tool?: TTool;
  params?: Record<string, unknown>;
  git?: { repo: string; branch: string; sha: string };
  labels?: Record<string, string>;
  startedAt?: string;
}

export interface TVerdict {
  metric: string;
  change_pct: number | null;
  ci95: [number, number] | null;
  p_value: number | null;
  verdict: string;
}

export interface TLiveSample {
  ts: number;
  elapsed_s: number;
  values: Record<string, number>;
}

/** POST /runs/{id}/output answer (ZRunOutputResult). */
export interface TOutputResult {
  tool: TTool;
  workload: string;
  summary: TMetric[];
  warnings: string[];
  incomplete: boolean;
  /** Interval samples stored from the output (0 when live samples were posted). */
  samples: number;
  /** The output ends in an error (older servers omit it). */
  error?: string | null;
}

/** GET /runs/{id}/compare answer (ZRunComparison), the fields the CLI reads. */
export interface TComparison {
  verdicts: TVerdict[];
  regression: boolean;
  verdict?: string;
  envHealthy?: boolean | null;
  env_reasons?: string[];
  baseline?: {
    kind: 'run' | 'branch';
    ref: string;
    /** "main (last 3 runs)" (servers before the one-verdict change omit it). */
    name?: string;
    branch: string | null;
    run_ids: string[];
  };
  /** The run verdict's one-line reason, and a warning when the runs are not comparable. */
  reason?: string;
  warning?: string | null;
}

export class ApiClient {
  constructor(
    readonly baseUrl: string,
    private readonly token: string,
    private readonly timeoutMs = 30_000,
  ) {}

  async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const url = this.baseUrl.replace(/\/+$/, '') + path;
    const res = await httpRequest(url, {
      method,
      headers: {
        authorization: `Bearer ${this.token}`,
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      timeoutMs: this.timeoutMs,
    });
    if (res.status < 200 || res.status >= 300) throw new ApiError(res.status, `${method} ${url}`, res.body);
    if (!res.body) return undefined as T;
    try {
      return JSON.parse(res.body) as T;
    } catch {
      throw new ApiError(res.status, `${method} ${url}`, `response is not JSON: ${res.body.slice(0, 200)}`);
    }
  }

  createRun(run: TCreateRun): Promise<{ id: string }> {
    return this.call('POST', '/api/v1/runs', run);
  }
  /** `batchId` makes a retry idempotent (the server stores one id once). */
  postSamples(id: string, samples: TLiveSample[], batchId?: string): Promise<unknown> {
    return this.call('POST', `/api/v1/runs/${encodeURIComponent(id)}/samples`, { samples, batchId });
  }
  postOutput(id: string, output: string, tool?: TTool): Promise<Partial<TOutputResult>> {
    return this.call('POST', `/api/v1/runs/${encodeURIComponent(id)}/output`, { output, tool });
  }
  postResults(id: string, metrics: TMetric[]): Promise<unknown> {
    return this.call('POST', `/api/v1/runs/${encodeURIComponent(id)}/results`, { metrics });
  }
  finishRun(
    id: string,
    status: 'succeeded' | 'failed' | 'cancelled',
    exitCode?: number,
    error?: string,
  ): Promise<unknown> {
    return this.call('POST', `/api/v1/runs/${encodeURIComponent(id)}/finish`, {
      status,
      exitCode,
      ...(error ? { error: error.slice(0, 4000) } : {}),
    });
  }
  compare(id: string, baseline?: string): Promise<TComparison> {
    const q = baseline ? `?baseline=${encodeURIComponent(baseline)}` : '';
    return this.call('GET', `/api/v1/runs/${encodeURIComponent(id)}/compare${q}`);
  }
}

export { UnreachableError };
