/** clusterscope-agent: the collector daemon (dist/agent.js). */
import { accessSync, constants, mkdirSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Agent } from '../agent';
import { ConfigError, DEFAULT_CONFIG_PATH, loadConfig, redactConfig, type TAgentConfig } from '../config';
import { systemdDropin } from '../systemd';
import { ingestUrl } from '../delivery';
import { readEnv } from '../env';
import type { CheckResult } from '../inputs/types';
import { httpRequest } from '../lib/http';
import { createLogger, errorMessage } from '../lib/log';
import { serveMetrics } from '../metrics';
import { AGENT_VERSION } from '../version';
import { gzipSync } from 'node:zlib';
import { randomUUID } from 'node:crypto';

const HELP = `clusterscope-agent ${AGENT_VERSION} — collects CockroachDB, cgroup, host and heartbeat samples and ships them to Clusterscope.

Usage: clusterscope-agent [--config FILE] [--once | --check | --print-config | --systemd-dropin]

Options:
  -c, --config FILE   YAML or TOML config (default: $CLUSTERSCOPE_CONFIG, then ${DEFAULT_CONFIG_PATH} if present)
      --once          collect once, deliver everything pending, exit (0 = all delivered and
                      every enabled input produced samples)
      --check         validate config, reach the server and every source, print a report (exit 1 on failure)
      --print-config  print the effective config (token redacted) and exit
      --systemd-dropin  print the systemd drop-in making the jobs' directories writable (ReadWritePaths)
  -v, --version       print the version
  -h, --help          this help

Environment overrides: CLUSTERSCOPE_URL, CLUSTERSCOPE_TOKEN, CLUSTERSCOPE_CLUSTER, CLUSTERSCOPE_HOST,
CLUSTERSCOPE_NODE_ID, CLUSTERSCOPE_INTERVAL (e.g. 10s), CLUSTERSCOPE_OUTBOX_DIR, CLUSTERSCOPE_OUTBOX_MAX_BYTES
(e.g. 256MB), CLUSTERSCOPE_METRICS_LISTEN (host:port or "off"), CLUSTERSCOPE_LOG_LEVEL.
Logs are JSON lines on stderr. Metrics: GET http://127.0.0.1:9273/metrics (Prometheus text).`;

async function runCheck(config: TAgentConfig, agent: Agent): Promise<boolean> {
  const results: CheckResult[] = [];
  try {
    mkdirSync(config.outbox.dir, { recursive: true });
    accessSync(config.outbox.dir, constants.W_OK);
    results.push({ name: `outbox ${config.outbox.dir}`, ok: true, detail: 'writable' });
  } catch (e) {
    results.push({
      name: `outbox ${config.outbox.dir}`,
      ok: false,
      detail: `${errorMessage(e)} (the agent user needs write access)`,
    });
  }
  // An empty batch proves reachability and the token without storing anything.
  const url = ingestUrl(config.url);
  try {
    const res = await httpRequest(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${config.token}`,
        'content-type': 'application/json',
        'content-encoding': 'gzip',
      },
      body: gzipSync(
        JSON.stringify({ batchId: `check-${randomUUID()}`, cluster: config.cluster, samples: [] }),
      ),
      timeoutMs: config.delivery.timeout,
    });
    const ok = res.status >= 200 && res.status < 300;
    const hint =
      res.status === 401 || res.status === 403
        ? ' — the token is invalid, revoked or lacks the "ingest" scope (CLUSTERSCOPE_TOKEN)'
        : res.status === 404
          ? ' — wrong url? expected the Clusterscope base URL'
          : '';
    results.push({
      name: `server ${url}`,
      ok,
      detail: ok ? `HTTP ${res.status}` : `HTTP ${res.status} ${res.body.slice(0, 300)}${hint}`,
    });
  } catch (e) {
    results.push({ name: `server ${url}`, ok: false, detail: errorMessage(e) });
  }
  for (const input of agent.inputs) {
    try {
      results.push(...(await input.check()));
    } catch (e) {
      results.push({ name: input.name, ok: false, detail: errorMessage(e) });
    }
  }
  for (const r of results) console.log(`${r.ok ? 'OK  ' : 'FAIL'}  ${r.name} — ${r.detail}`);
  const failed = results.filter((r) => !r.ok).length;
  console.log(failed ? `\n${failed} check(s) failed.` : `\nAll ${results.length} checks passed.`);
  return failed === 0;
}

/** The job loop and the bench parsers, evaluated only when jobs are enabled (bundled into this file). */
const loadJobs = () => import('../jobs/runner');

async function main(): Promise<number> {
  let args;
  try {
    args = parseArgs({
      options: {
        config: { type: 'string', short: 'c' },
        once: { type: 'boolean' },
        check: { type: 'boolean' },
        'print-config': { type: 'boolean' },
        'systemd-dropin': { type: 'boolean' },
        version: { type: 'boolean', short: 'v' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }).values;
  } catch (e) {
    console.error(`${errorMessage(e)}\n\n${HELP}`);
    return 2;
  }
  if (args.help) {
    console.log(HELP);
    return 0;
  }
  if (args.version) {
    console.log(AGENT_VERSION);
    return 0;
  }
  const env = readEnv();
  let config: TAgentConfig;
  try {
    config = loadConfig(env, args.config).config;
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(`clusterscope-agent: invalid configuration\n${e.message}`);
      return 2;
    }
    throw e;
  }
  if (args['systemd-dropin']) {
    console.log(systemdDropin(config));
    return 0;
  }
  if (args['print-config']) {
    console.log(JSON.stringify(redactConfig(config), null, 2));
    return 0;
  }
  const logger = createLogger(config.log_level, { app: 'clusterscope-agent' });
  const agent = new Agent({ config, logger, pathEnv: env.PATH });
  if (args.check) return (await runCheck(config, agent)) ? 0 : 1;

  agent.open();
  if (args.once) {
    const n = await agent.collectOnce();
    const done = await agent.delivery.drain(Date.now() + config.delivery.timeout);
    const s = agent.outbox.stats();
    logger.info(
      done ? 'collected and delivered' : 'collected; some batches are still pending in the outbox',
      { samples: n, ...s },
    );
    agent.outbox.close();
    if (agent.failedInputs.size > 0) {
      logger.error('enabled inputs produced nothing', { inputs: [...agent.failedInputs] });
      return 1;
    }
    return done ? 0 : 1;
  }

  let metricsServer: Awaited<ReturnType<typeof serveMetrics>> | undefined;
  if (config.metrics.listen !== false) {
    try {
      metricsServer = await serveMetrics(agent.metrics, config.metrics.listen, () => {
        agent.delivery.refreshGauges();
        agent.metrics.set(
          'clusterscope_agent_uptime_seconds',
          'Seconds since the agent started',
          agent.uptimeS(),
        );
      });
      logger.info('metrics endpoint listening', { url: metricsServer.url });
    } catch (e) {
      logger.error('metrics endpoint failed to start; continuing without it', {
        listen: config.metrics.listen,
        err: errorMessage(e),
      });
    }
  }
  agent.metrics.set('clusterscope_agent_info', 'Agent build info', 1, { version: AGENT_VERSION });
  logger.info('agent started', {
    version: AGENT_VERSION,
    url: config.url,
    cluster: config.cluster,
    interval_ms: config.interval,
    inputs: agent.inputs.map((i) => i.name),
    outbox: config.outbox.dir,
  });
  agent.start();
  const jobs = config.jobs.enabled
    ? new (await loadJobs()).JobLoop({
        url: config.url,
        token: config.token,
        agentName: config.host,
        config: config.jobs,
        logger: logger.child({ component: 'jobs' }),
        pathEnv: env.PATH ?? '',
        enqueueSamples: (s) => agent.enqueueSamples(s),
        // The delivery loop is running: wait for it to empty the outbox (drain() is for --once only).
        drain: async (deadline) => {
          agent.delivery.wake();
          while (agent.outbox.stats().pending > 0 && Date.now() < deadline)
            await new Promise((r) => setTimeout(r, 100));
          return agent.outbox.stats().pending === 0;
        },
      })
    : undefined;
  jobs?.start();
  await new Promise<void>((resolve) => {
    const stop = (sig: string) => {
      logger.info('stopping', { signal: sig });
      resolve();
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
  await jobs?.stop();
  await agent.stop();
  await metricsServer?.close();
  return 0;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(`clusterscope-agent: fatal: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    process.exit(1);
  },
);
