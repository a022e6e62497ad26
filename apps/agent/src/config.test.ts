import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, redactConfig } from './config';
import { readEnv } from './env';
import { parseDurationMs, parseSizeBytes } from './lib/units';
import { tempDir } from '../test/temp';

const file = (name: string, text: string) => {
  const p = join(tempDir('cfg'), name);
  writeFileSync(p, text);
  return p;
};
const env = (e: Record<string, string> = {}) => readEnv({ PATH: '/usr/bin', ...e });

describe('agent config', () => {
  it('loads YAML with defaults and input configs', () => {
    const p = file(
      'a.yaml',
      `url: https://cs.example.com\ntoken: secret-token\ncluster: prod\ninterval: 15s\noutbox: { max_bytes: 64MiB }\ninputs:\n  cockroachdb: { urls: ['http://10.0.0.1:8080'] }\n  heartbeat: false\n`,
    );
    const { config } = loadConfig(env(), p);
    expect(config).toMatchObject({
      url: 'https://cs.example.com',
      cluster: 'prod',
      interval: 15_000,
      outbox: {
        dir: '/var/lib/clusterscope-agent/outbox',
        max_bytes: 64 * 1024 * 1024,
        segment_bytes: 8 * 1024 * 1024,
      },
      delivery: { timeout: 30_000, backoff_initial: 1000, backoff_max: 300_000 },
      metrics: { listen: '127.0.0.1:9273' },
      inputs: {
        cockroachdb: {
          urls: ['http://10.0.0.1:8080'],
          timeout: 5000,
          cli: { path: 'cockroach', args: [], enabled: true },
        },
        heartbeat: false,
      },
    });
  });

  it('loads TOML and applies env overrides', () => {
    const p = file(
      'a.toml',
      `url = "https://a.example.com"\ntoken = "t1"\n[inputs.cgroup]\nroot = "/tmp/cg"\n`,
    );
    const { config } = loadConfig(
      env({
        CLUSTERSCOPE_URL: 'https://b.example.com',
        CLUSTERSCOPE_TOKEN: 't2',
        CLUSTERSCOPE_CLUSTER: 'east',
        CLUSTERSCOPE_INTERVAL: '500ms',
        CLUSTERSCOPE_NODE_ID: '4',
        CLUSTERSCOPE_OUTBOX_DIR: '/tmp/ob',
        CLUSTERSCOPE_METRICS_LISTEN: 'off',
      }),
      p,
    );
    expect(config).toMatchObject({
      url: 'https://b.example.com',
      token: 't2',
      cluster: 'east',
      interval: 500,
      node_id: 4,
    });
    expect(config.outbox.dir).toBe('/tmp/ob');
    expect(config.metrics.listen).toBe(false);
    expect(config.inputs.cgroup).toMatchObject({
      root: '/tmp/cg',
      targets: [{ children_of: '/system.slice' }],
    });
  });

  it('works from env only (no file) via CLUSTERSCOPE_CONFIG unset', () => {
    const { config, path } = loadConfig(
      env({ CLUSTERSCOPE_URL: 'http://127.0.0.1:3000', CLUSTERSCOPE_TOKEN: 'x' }),
      undefined,
    );
    expect(path === undefined || path === '/etc/clusterscope/agent.yaml').toBe(true);
    expect(config.token).toBe('x');
  });

  it('names the offending fields', () => {
    const p = file(
      'bad.yaml',
      `url: not-a-url\ninterval: 10 parsecs\ninputs:\n  cgroup: { targets: [{ unit: "" }] }\n  nope: {}\n`,
    );
    let msg = '';
    try {
      loadConfig(env(), p);
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      msg = (e as Error).message;
    }
    expect(msg).toContain(`${p}: url: must be the Clusterscope base URL`);
    expect(msg).toContain(`${p}: token: is required`);
    expect(msg).toMatch(/interval: invalid duration "10 parsecs"/);
    expect(msg).toContain(`${p}: inputs.nope: unknown key`);
  });

  it('reports YAML syntax errors and a missing file', () => {
    expect(() => loadConfig(env(), file('x.yaml', 'url: [unclosed'))).toThrow(ConfigError);
    expect(() => loadConfig(env(), '/nonexistent/agent.yaml')).toThrow(
      /cannot read config file \/nonexistent\/agent.yaml/,
    );
  });

  it('redacts the token', () => {
    const { config } = loadConfig(
      env({ CLUSTERSCOPE_URL: 'http://h:1', CLUSTERSCOPE_TOKEN: 'supersecret' }),
      undefined,
    );
    expect(JSON.stringify(redactConfig(config))).not.toContain('supersecret');
  });

  it('parses durations and sizes', () => {
    expect(parseDurationMs('10s')).toBe(10_000);
    expect(parseDurationMs('250ms')).toBe(250);
    expect(parseDurationMs('2m')).toBe(120_000);
    expect(parseDurationMs(1.5)).toBe(1500);
    expect(() => parseDurationMs('soon')).toThrow(/invalid duration/);
    expect(parseSizeBytes('256MB')).toBe(256e6);
    expect(parseSizeBytes('1GiB')).toBe(1024 ** 3);
    expect(() => parseSizeBytes('lots')).toThrow(/invalid size/);
  });
});
