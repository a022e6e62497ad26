import { accessSync, constants, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { defineInput } from '../types';
import { ZHeartbeatConfig } from './config';

/** Resolve `name` on PATH to the absolute path of an executable file; relative PATH entries are ignored. */
export function findOnPath(name: string, pathEnv: string): string | undefined {
  for (const dir of pathEnv.split(':')) {
    if (!dir || !isAbsolute(dir)) continue;
    const p = join(dir, name);
    try {
      if (!statSync(p).isFile()) continue;
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      /* not here */
    }
  }
  return undefined;
}

export function detectTools(tools: readonly string[], pathEnv: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const t of tools) {
    const p = findOnPath(t, pathEnv);
    if (p) out.set(t, p);
  }
  return out;
}

export const heartbeatInput = defineInput({
  name: 'heartbeat',
  enabledByDefault: true,
  config: ZHeartbeatConfig,
  create(cfg, ctx) {
    const rescanMs = cfg.rescan;
    const pathEnv = ctx.pathEnv ?? '';
    let tools = detectTools(cfg.tools, pathEnv);
    let scannedAt = Date.now();
    ctx.logger.info('capabilities', { tools: Object.fromEntries(tools) });
    return {
      async collect(now) {
        if (now - scannedAt >= rescanMs) {
          tools = detectTools(cfg.tools, pathEnv);
          scannedAt = now;
        }
        const ob = ctx.outboxStats();
        return [
          {
            kind: 'heartbeat',
            ts: now,
            host: ctx.host,
            version: ctx.version,
            uptime_s: Math.max(0, (now - ctx.startedAt) / 1000),
            capabilities: [...tools.keys()],
            outbox_bytes: ob.bytes,
            outbox_pending: ob.pending,
            outbox_evictions: ob.evictions,
            // Series the prometheus input dropped (series cap, ±Inf values) since start.
            metrics_dropped: ctx.counters?.metricsDropped ?? 0,
            ...(ctx.jobLimits ? { job_limits: ctx.jobLimits } : {}),
          },
        ];
      },
      async check() {
        const found = detectTools(cfg.tools, pathEnv);
        return [
          {
            name: 'heartbeat tools on PATH',
            ok: true,
            detail: found.size ? [...found].map(([k, v]) => `${k}=${v}`).join(', ') : 'none found',
          },
        ];
      },
    };
  },
});
