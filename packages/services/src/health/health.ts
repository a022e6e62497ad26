import { pingDb } from '@clusterscope/db';
import { pingClickHouse } from '@clusterscope/tsdb';
import type { TDeps } from '../core/deps';

export interface THealth {
  status: 'ok' | 'degraded';
  postgres: string;
  clickhouse: string;
  version: string;
}

const withTimeout = <T>(p: Promise<T>, ms: number, what: string) =>
  Promise.race([
    p,
    new Promise<never>((_, rej) => setTimeout(() => rej(new Error(`${what} timed out after ${ms} ms`)), ms)),
  ]);

/** Probes both stores; each failure names its dependency. */
export async function checkHealth(deps: TDeps, version: string): Promise<THealth> {
  const [pg, ch] = await Promise.allSettled([
    withTimeout(pingDb(deps.db), 3000, 'postgres'),
    withTimeout(pingClickHouse(deps.ch), 3000, 'clickhouse'),
  ]);
  const state = (r: PromiseSettledResult<unknown>) =>
    r.status === 'fulfilled' ? 'ok' : `down: ${(r.reason as Error)?.message ?? String(r.reason)}`;
  const postgres = state(pg);
  const clickhouse = state(ch);
  return {
    status: postgres === 'ok' && clickhouse === 'ok' ? 'ok' : 'degraded',
    postgres,
    clickhouse,
    version,
  };
}
