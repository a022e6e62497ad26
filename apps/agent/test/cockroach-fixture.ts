/** Wire-like CockroachDB admin HTTP fixtures (camelCase, int64 as strings, ns timestamps) + a server. */
import http from 'node:http';
import { LIVENESS } from '@clusterscope/schema';
import { listenOnLoopback } from './loopback';

export interface FixtureNode {
  id: number;
  liveness: number; // wire enum: 1 DEAD, 3 LIVE, 6 DRAINING, ...
  draining?: boolean;
  /** Liveness expiration relative to `now`, ms (negative = expired). */
  expiresInMs: number;
  membership?: 'ACTIVE' | 'DECOMMISSIONING' | 'DECOMMISSIONED';
  stores: Record<string, number>[];
}

const ns = (ms: number) => (BigInt(ms) * 1_000_000n + 123_456n).toString();

export function makeStatusNodes(nodes: FixtureNode[], now: number): unknown {
  return {
    nodes: nodes.map((n) => ({
      desc: {
        nodeId: n.id,
        address: { networkField: 'tcp', addressField: `host${n.id}:26257` },
        attrs: { attrs: [] },
        locality: {
          tiers: [
            { key: 'region', value: 'eu-west1' },
            { key: 'zone', value: `eu-west1-${'abc'[n.id % 3]}` },
          ],
        },
        buildTag: 'v23.1.11',
        startedAt: ns(now - 3_600_000 * n.id),
        sqlAddress: { networkField: 'tcp', addressField: `host${n.id}:26257` },
      },
      buildInfo: { goVersion: 'go1.19.13', tag: 'v23.1.11', platform: 'linux amd64' },
      startedAt: ns(now - 3_600_000 * n.id),
      updatedAt: ns(now - (n.liveness === 1 ? 600_000 : 2_000)),
      metrics: { 'sys.uptime': 3600 * n.id, 'liveness.livenodes': 3, 'liveness.heartbeatfailures': 0 },
      storeStatuses: n.stores.map((m, i) => ({
        desc: {
          storeId: n.id * 10 + i,
          capacity: { capacity: String(m.capacity ?? 0), available: String(m['capacity.available'] ?? 0) },
        },
        metrics: m,
      })),
      totalSystemMemory: '16777216000',
      numCpus: 8,
    })),
    livenessByNodeId: Object.fromEntries(nodes.map((n) => [String(n.id), n.liveness])),
  };
}

export function makeLiveness(nodes: FixtureNode[], now: number): unknown {
  return {
    livenesses: nodes.map((n) => ({
      nodeId: n.id,
      epoch: String(n.id + 1),
      expiration: { wallTime: ns(now + n.expiresInMs), logical: 0 },
      draining: n.draining ?? false,
      membership: n.membership ?? 'ACTIVE',
    })),
    statuses: Object.fromEntries(nodes.map((n) => [String(n.id), `NODE_STATUS_${LIVENESS[n.liveness]}`])),
  };
}

/** Typical store metrics for a healthy node; `scale` varies values per node. */
export function storeMetrics(scale: number): Record<string, number> {
  return {
    replicas: 300 + scale,
    'replicas.leaders': 100 + scale,
    'replicas.leaseholders': 99 + scale,
    ranges: 300 + scale,
    'ranges.unavailable': 0,
    'ranges.underreplicated': 0,
    'ranges.overreplicated': 0,
    capacity: 500_000_000_000,
    'capacity.available': 400_000_000_000 - scale,
    'capacity.used': 90_000_000_000 + scale,
    livebytes: 80_000_000_000 + scale,
    keybytes: 10_000_000_000 + scale,
    valbytes: 70_000_000_000 + scale,
    intentbytes: 1000 + scale,
    sysbytes: 500_000 + scale,
  };
}

export interface CockroachFixtureServer {
  url: string;
  requests: string[];
  /** Node ids whose /health?ready=1 answers 503. */
  notReady: Set<number>;
  close(): Promise<void>;
}

/**
 * Serve `/_status/nodes`, `/_admin/v1/liveness`, `/health` (and `/_status/vars`, `/_status/details/local` when given)
 * on 127.0.0.1:0; bodies rebuilt per request.
 */
export async function startCockroachFixture(
  bodies: () => { nodes: unknown; liveness: unknown; vars?: string; nodeId?: number },
  opts: { healthNodeId?: number } = {},
): Promise<CockroachFixtureServer> {
  const requests: string[] = [];
  const notReady = new Set<number>();
  const server = http.createServer((req, res) => {
    requests.push(req.url ?? '');
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.url === '/_status/nodes') send(200, bodies().nodes);
    else if (req.url === '/_admin/v1/liveness') send(200, bodies().liveness);
    else if (req.url === '/_status/vars' && bodies().vars !== undefined) {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
      res.end(bodies().vars);
    } else if (req.url === '/_status/details/local' && bodies().nodeId !== undefined)
      send(200, { nodeId: bodies().nodeId, address: { addressField: 'host:26257' } });
    else if (req.url?.startsWith('/health')) {
      if (opts.healthNodeId !== undefined && notReady.has(opts.healthNodeId))
        send(503, { error: 'node is draining' });
      else send(200, {});
    } else send(404, { error: 'not found' });
  });
  return { ...(await listenOnLoopback(server)), requests, notReady };
}
