import type { TNodeStatusSample } from '@clusterscope/schema';
import { httpRequest } from '../../lib/http';
import { errorMessage, type Logger } from '../../lib/log';
import { defineInput, type CheckResult, type InputContext } from '../types';
import { parseNodeStatusOutput } from './cli-output';
import { ZCockroachdbConfig, type TCockroachdbConfig } from './config';
import { buildNodeStatusSamples } from './wire';

async function getJson(
  base: string,
  path: string,
  cfg: TCockroachdbConfig,
  logger?: Pick<Logger, 'warn'>,
): Promise<unknown> {
  const url = base.replace(/\/+$/, '') + path;
  const res = await httpRequest(url, {
    headers: { accept: 'application/json', ...cfg.headers },
    timeoutMs: cfg.timeout,
  });
  if (res.status !== 200) throw new Error(`GET ${url}: HTTP ${res.status} ${res.body.slice(0, 200)}`);
  try {
    return JSON.parse(res.body);
  } catch (e) {
    // A login page, a proxy's HTML error or a truncated body: say which endpoint and what came back.
    const detail = {
      url,
      content_type: String(res.headers['content-type'] ?? ''),
      bytes: res.body.length,
      start: res.body.slice(0, 120),
      err: errorMessage(e),
    };
    logger?.warn('cockroachdb: response is not valid JSON', detail);
    throw new Error(
      `GET ${url}: response is not valid JSON (${detail.err}); starts with ${JSON.stringify(detail.start.slice(0, 60))}`,
    );
  }
}

/** `/health?ready=1`: 200 ready, 503 not ready or draining. */
export async function probeReady(
  base: string,
  cfg: TCockroachdbConfig,
): Promise<{ reachable: boolean; ready: boolean; detail: string }> {
  const url = base.replace(/\/+$/, '') + '/health?ready=1';
  try {
    const res = await httpRequest(url, { headers: cfg.headers, timeoutMs: cfg.timeout });
    const ready = res.status === 200;
    return { reachable: true, ready, detail: ready ? 'ready' : `HTTP ${res.status} (not ready or draining)` };
  } catch (e) {
    return { reachable: false, ready: false, detail: errorMessage(e) };
  }
}

async function runCli(cfg: TCockroachdbConfig): Promise<string> {
  // Loaded on first use: most agents never run the CLI fallback, so they never pay for node:child_process.
  const { execFile } = await import('node:child_process');
  return new Promise((resolve, reject) => {
    execFile(
      cfg.cli.path,
      ['node', 'status', '--all', '--format=csv', ...cfg.cli.args],
      { timeout: cfg.timeout * 2, maxBuffer: 8 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`${cfg.cli.path} node status failed: ${stderr.trim() || err.message}`));
        else resolve(stdout);
      },
    );
  });
}

export async function collectCockroach(
  cfg: TCockroachdbConfig,
  now: number,
  ctx?: Pick<InputContext, 'logger'>,
): Promise<{ samples: TNodeStatusSample[]; source: string }> {
  const errors: string[] = [];
  for (const base of cfg.urls) {
    let nodes: unknown;
    try {
      nodes = await getJson(base, '/_status/nodes', cfg, ctx?.logger);
    } catch (e) {
      errors.push(errorMessage(e));
      continue;
    }
    let liveness: unknown;
    try {
      liveness = await getJson(base, '/_admin/v1/liveness', cfg, ctx?.logger);
    } catch (e) {
      ctx?.logger.debug('cockroachdb liveness unavailable', { url: base, err: errorMessage(e) });
    }
    return { samples: buildNodeStatusSamples(nodes, liveness, now), source: base };
  }
  if (cfg.cli.enabled) {
    try {
      return { samples: parseNodeStatusOutput(await runCli(cfg), now), source: 'cli' };
    } catch (e) {
      errors.push(errorMessage(e));
    }
  }
  throw new Error(
    `no CockroachDB source answered: ${errors.join('; ') || 'no urls configured and cli disabled'}`,
  );
}

export const cockroachdbInput = defineInput({
  name: 'cockroachdb',
  enabledByDefault: false,
  config: ZCockroachdbConfig,
  create(cfg, ctx) {
    const notReady = new Set<string>();
    return {
      async collect(now) {
        const [{ samples, source }, probes] = await Promise.all([
          collectCockroach(cfg, now, ctx),
          Promise.all(cfg.urls.map(async (u) => [u, await probeReady(u, cfg)] as const)),
        ]);
        for (const [u, p] of probes) {
          if (!p.ready && !notReady.has(u))
            ctx.logger.warn('cockroachdb node not ready', { url: u, detail: p.detail });
          if (p.ready) notReady.delete(u);
          else notReady.add(u);
        }
        if (source === 'cli' && cfg.urls.length > 0)
          ctx.logger.warn('cockroachdb: HTTP unreachable, used CLI fallback');
        return samples;
      },
      async check() {
        const out: CheckResult[] = [];
        for (const u of cfg.urls) {
          try {
            const body = await getJson(u, '/_status/nodes', cfg);
            const n = buildNodeStatusSamples(body, undefined, Date.now()).length;
            out.push({ name: `cockroachdb ${u}/_status/nodes`, ok: true, detail: `${n} nodes` });
          } catch (e) {
            out.push({ name: `cockroachdb ${u}/_status/nodes`, ok: false, detail: errorMessage(e) });
          }
          const p = await probeReady(u, cfg);
          out.push({ name: `cockroachdb ${u}/health?ready=1`, ok: p.reachable, detail: p.detail });
        }
        if (!out.some((r) => r.ok && r.name.endsWith('/_status/nodes'))) {
          try {
            const s = await collectCockroach({ ...cfg, urls: [] }, Date.now());
            out.push({ name: 'cockroachdb cli fallback', ok: true, detail: `${s.samples.length} nodes` });
          } catch (e) {
            out.push({ name: 'cockroachdb cli fallback', ok: false, detail: errorMessage(e) });
          }
        }
        return out;
      },
    };
  },
});
