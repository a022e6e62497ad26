/**
 * The code forges' REST APIs the CLI writes a report to: GitHub (issue comments, check runs) and GitLab
 * (merge-request notes). The CLI runs in CI, so it talks to GITHUB_API_URL / CI_API_V4_URL directly.
 */
import { httpRequest, type HttpResponse } from '../lib/http';
import { AGENT_VERSION } from '../version';

/** A forge answered with an error; `hint` says what to change (token scope, permissions, fork PRs). */
export class ForgeError extends Error {
  constructor(
    readonly status: number,
    what: string,
    body: string,
    hint = '',
  ) {
    super(
      `${what} answered HTTP ${status}: ${body.slice(0, 300) || '(empty body)'}${hint ? `\n  → ${hint}` : ''}`,
    );
  }
}

type TComment = { id: number; body?: string };

async function call(
  method: string,
  url: string,
  headers: Record<string, string>,
  body: unknown,
  hint: (status: number) => string,
): Promise<HttpResponse> {
  const res = await httpRequest(url, {
    method,
    headers: {
      ...headers,
      'user-agent': `clusterscope/${AGENT_VERSION}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    timeoutMs: 30_000,
  });
  if (res.status < 200 || res.status >= 300)
    throw new ForgeError(res.status, `${method} ${url}`, res.body, hint(res.status));
  return res;
}

function parseJson<T>(res: HttpResponse, url: string): T {
  try {
    return JSON.parse(res.body) as T;
  } catch {
    throw new ForgeError(res.status, url, `not JSON: ${res.body.slice(0, 100)}`);
  }
}

/** Pages through a list endpoint (100 per page) until `match` finds an item or the pages end. */
async function findInPages<T>(
  get: (page: number) => Promise<T[]>,
  match: (item: T) => boolean,
  maxPages = 50,
): Promise<T | undefined> {
  for (let page = 1; page <= maxPages; page++) {
    const items = await get(page);
    const hit = items.find(match);
    if (hit || items.length < 100) return hit;
  }
  return undefined;
}

export type TCheckConclusion = 'success' | 'failure' | 'neutral';

export class GitHubClient {
  private readonly base: string;
  private readonly headers: Record<string, string>;
  constructor(
    apiUrl: string,
    readonly repository: string,
    token: string,
  ) {
    this.base = `${apiUrl.replace(/\/+$/, '')}/repos/${repository}`;
    this.headers = {
      authorization: `Bearer ${token}`,
      accept: 'application/vnd.github+json',
      'x-github-api-version': '2022-11-28',
    };
  }

  private hint = (what: 'comment' | 'check') => (status: number) => {
    if (status === 401) return 'the GitHub token is invalid or expired (GITHUB_TOKEN or --github-token).';
    if (status === 403 || status === 404)
      return what === 'comment'
        ? `the token cannot write to ${this.repository}: give the job "permissions: pull-requests: write". On pull requests from forks GITHUB_TOKEN is read-only; post from a workflow_run job instead (clusterscope report --run ID --github-actions --pr N --head-sha S, see docs/ci/).`
        : `the token cannot create check runs in ${this.repository}: give the job "permissions: checks: write". On pull requests from forks GITHUB_TOKEN is read-only; post from a workflow_run job instead (see docs/ci/).`;
    return '';
  };

  /** Creates the comment holding `marker`, or edits it in place when one exists. Returns its id. */
  async upsertComment(pr: number, marker: string, body: string): Promise<{ id: number; created: boolean }> {
    const list = `${this.base}/issues/${pr}/comments`;
    const found = await findInPages<TComment>(
      async (page) =>
        parseJson(
          await call(
            'GET',
            `${list}?per_page=100&page=${page}`,
            this.headers,
            undefined,
            this.hint('comment'),
          ),
          list,
        ),
      (c) => typeof c.body === 'string' && c.body.includes(marker),
    );
    if (found) {
      await call(
        'PATCH',
        `${this.base}/issues/comments/${found.id}`,
        this.headers,
        { body },
        this.hint('comment'),
      );
      return { id: found.id, created: false };
    }
    const res = await call('POST', list, this.headers, { body }, this.hint('comment'));
    return { id: parseJson<TComment>(res, list).id, created: true };
  }

  async createCheck(name: string, headSha: string, detailsUrl?: string): Promise<number> {
    const url = `${this.base}/check-runs`;
    const res = await call(
      'POST',
      url,
      this.headers,
      {
        name,
        head_sha: headSha,
        status: 'in_progress',
        started_at: new Date().toISOString(),
        ...(detailsUrl ? { details_url: detailsUrl } : {}),
      },
      this.hint('check'),
    );
    return parseJson<{ id: number }>(res, url).id;
  }

  /** Completes check `id`, or creates a completed one when there is none yet (id undefined). */
  async completeCheck(
    id: number | undefined,
    check: {
      name: string;
      headSha: string;
      conclusion: TCheckConclusion;
      title: string;
      summary: string;
      detailsUrl?: string;
    },
  ): Promise<number> {
    const body = {
      ...(check.name ? { name: check.name } : {}),
      status: 'completed',
      conclusion: check.conclusion,
      completed_at: new Date().toISOString(),
      ...(check.detailsUrl ? { details_url: check.detailsUrl } : {}),
      // GitHub caps a check's summary at 65535 characters.
      output: { title: check.title.slice(0, 250), summary: check.summary.slice(0, 65_000) },
    };
    if (id !== undefined) {
      await call('PATCH', `${this.base}/check-runs/${id}`, this.headers, body, this.hint('check'));
      return id;
    }
    const url = `${this.base}/check-runs`;
    const res = await call(
      'POST',
      url,
      this.headers,
      { ...body, head_sha: check.headSha },
      this.hint('check'),
    );
    return parseJson<{ id: number }>(res, url).id;
  }
}

export class GitLabClient {
  private readonly notes: string;
  private readonly headers: Record<string, string>;
  constructor(apiUrl: string, project: string, mr: number, token: string) {
    this.notes = `${apiUrl.replace(/\/+$/, '')}/projects/${encodeURIComponent(project)}/merge_requests/${mr}/notes`;
    this.headers = { 'private-token': token, accept: 'application/json' };
  }

  private hint = (status: number) =>
    status === 401
      ? 'GITLAB_TOKEN is invalid or expired.'
      : status === 403 || status === 404
        ? 'GITLAB_TOKEN cannot write merge-request notes here: use a project or personal access token with the "api" scope and at least the Reporter role (CI_JOB_TOKEN cannot post notes).'
        : '';

  /** Creates the note holding `marker`, or edits it in place when one exists. */
  async upsertNote(marker: string, body: string): Promise<{ id: number; created: boolean }> {
    const found = await findInPages<TComment>(
      async (page) =>
        parseJson(
          await call(
            'GET',
            `${this.notes}?per_page=100&page=${page}&sort=asc`,
            this.headers,
            undefined,
            this.hint,
          ),
          this.notes,
        ),
      (n) => typeof n.body === 'string' && n.body.includes(marker),
    );
    if (found) {
      await call('PUT', `${this.notes}/${found.id}`, this.headers, { body }, this.hint);
      return { id: found.id, created: false };
    }
    const res = await call('POST', this.notes, this.headers, { body }, this.hint);
    return { id: parseJson<TComment>(res, this.notes).id, created: true };
  }
}
