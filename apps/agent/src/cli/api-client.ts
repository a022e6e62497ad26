/** Client for the public REST API CI uses (/api/v1/runs…). */
import type {
  TMetric,
  TRunCreateIn,
  TRunOutputResult,
  TRunReport,
  TRunSampleIn,
  TFormat,
} from '@clusterscope/schema';
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

/** The REST contracts from @clusterscope/schema (types only: nothing of zod reaches the CLI bundle). */
export type TCreateRun = Omit<TRunCreateIn, 'output'>;
export type TLiveSample = TRunSampleIn & { ts: number };
/** POST /runs/{id}/output answer; older servers omit `error`. */
export type TOutputResult = Omit<TRunOutputResult, 'error'> & Partial<Pick<TRunOutputResult, 'error'>>;

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

  createRun(run: TCreateRun): Promise<{ id: string; notice?: string }> {
    return this.call('POST', '/api/v1/runs', run);
  }
  /** `batchId` makes a retry idempotent (the server stores one id once). */
  postSamples(id: string, samples: TLiveSample[], batchId?: string): Promise<unknown> {
    return this.call('POST', `/api/v1/runs/${encodeURIComponent(id)}/samples`, { samples, batchId });
  }
  postOutput(id: string, output: string, tool?: TFormat): Promise<Partial<TOutputResult>> {
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
  /** The server-rendered report every CI surface shows (GET /runs/{id}/report). */
  report(
    id: string,
    baseline?: string,
    startPoint?: string,
    verdictMetrics?: readonly string[],
  ): Promise<TRunReport> {
    const q = new URLSearchParams({ format: 'json' });
    if (baseline) q.set('baseline', baseline);
    if (startPoint) q.set('start_point', startPoint);
    if (verdictMetrics?.length) q.set('verdictMetrics', verdictMetrics.join(','));
    return this.call('GET', `/api/v1/runs/${encodeURIComponent(id)}/report?${q}`);
  }
}

export type { TRunReport };
export { UnreachableError };
