/** Entry of the alerting thread (thread.ts); bundled by apps/web into alert-worker.js. */
import { parentPort, workerData } from 'node:worker_threads';
import { createDb, createLeaderLock, createLiveBus } from '@clusterscope/db';
import { openClickHouse, type TChClient, type TTsdb } from '@clusterscope/tsdb';
import type { TDeps } from '../core/deps';
import { tuneThread } from '../core/os-thread';
import { createMailer } from '../core/mail';
import { createLogger } from '../core/logger';
import { createOutbound } from '../core/outbound';
import type { TSecretKey } from '../core/secrets';
import { ALERT_LEADER_KEY, startAlerting } from './runner';
import type { TAlertThreadConfig, TFromThread, TToThread } from './thread';

const port = parentPort;
if (!port) throw new Error('the alerting thread must run in a worker thread');
const cfg = workerData as TAlertThreadConfig;
const post = (m: TFromThread) => port.postMessage(m);

tuneThread('cs-alerting', cfg.nice);

const waiting = new Map<number, { resolve: (rows: unknown[]) => void; reject: (e: Error) => void }>();
let nextId = 1;

/**
 * chDB lives in the web thread: the repositories' SELECTs (selectRows: JSONEachRow) are sent there. Only
 * `query(...).json()` is supported, which is all the alerting reads use.
 */
function parentClickHouse(): TTsdb {
  const client = {
    query({ query, query_params }: { query: string; query_params?: Record<string, unknown> }) {
      const id = nextId++;
      const rows = new Promise<unknown[]>((resolve, reject) => waiting.set(id, { resolve, reject }));
      post({ t: 'ch', id, query, params: query_params ?? {} });
      return Promise.resolve({ json: () => rows });
    },
  } as unknown as TChClient;
  return {
    client,
    kind: 'chdb',
    address: 'chdb (through the web thread)',
    ping: async () => ({ ok: true }),
    insertTsv: () => Promise.reject(new Error('the alerting thread does not write to ClickHouse')),
    background: {}, // the web thread applies its own
    selectJson: () => Promise.reject(new Error('not used on the alerting thread')),
    close: async () => undefined,
  };
}

const decoder = new TextDecoder();
function parseJsonEachRow(json: Uint8Array): unknown[] {
  const rows: unknown[] = [];
  for (const line of decoder.decode(json).split('\n')) if (line) rows.push(JSON.parse(line));
  return rows;
}

const db = createDb(cfg.databaseUrl, { backendNice: cfg.nice });
const ch = cfg.clickhouseUrl
  ? await openClickHouse({ url: cfg.clickhouseUrl, path: '' })
  : parentClickHouse();
const bus = createLiveBus(cfg.databaseUrl);
// Buffers cross as Uint8Arrays.
const key = (k: TSecretKey): TSecretKey => ({ id: k.id, key: Buffer.from(k.key) });
const outbound = createOutbound({ allow: cfg.outboundAllow });
const deps: TDeps = {
  log: createLogger({ name: 'alerting' }),
  db,
  ch,
  secrets: { current: key(cfg.secrets.current), previous: cfg.secrets.previous.map(key) },
  mail: createMailer({ smtpUrl: cfg.smtp?.url, from: cfg.smtp?.from, outbound }),
  outbound,
  origin: cfg.origin,
  vapid: cfg.vapid,
};
const stop = startAlerting(deps, {
  lock: createLeaderLock(cfg.databaseUrl, ALERT_LEADER_KEY),
  intervalMs: cfg.intervalMs,
  bus,
  onCycle: (c) => post({ t: 'cycle', c }),
});

port.on('message', (m: TToThread) => {
  if (m.t === 'ch') {
    const w = waiting.get(m.id);
    waiting.delete(m.id);
    if (m.ok) w?.resolve(parseJsonEachRow(m.json));
    else w?.reject(new Error(m.error));
    return;
  }
  void (async () => {
    await stop().catch(() => undefined);
    await bus.close().catch(() => undefined);
    await ch.close().catch(() => undefined);
    await db.$disconnect().catch(() => undefined);
    post({ t: 'stopped' });
    process.exit(0);
  })();
});
