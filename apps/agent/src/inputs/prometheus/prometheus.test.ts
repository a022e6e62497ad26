import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/log';
import { ZPrometheusConfig } from './config';
import type { TMetricSample } from '@clusterscope/schema';
import { prometheusInput, toMetricSamples } from './index';
import { createPrometheusParser, parsePrometheusText, parseValue, type PromSample } from './parse';
import { compileFilter, SeriesLimiter } from './series';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
const parseAll = (text: string) => {
  const out: PromSample[] = [];
  const stats = parsePrometheusText(text, (s) => out.push(s));
  return { out, stats };
};
const logger = createLogger('error', {});

describe('parsePrometheusText', () => {
  it('reads HELP/TYPE, counters, gauges and a histogram family', () => {
    const { out, stats } = parseAll(
      [
        '# HELP sql_select_count Number of SQL SELECT statements',
        '# TYPE sql_select_count counter',
        'sql_select_count{store="1"} 42',
        '# TYPE sql_conns gauge',
        'sql_conns 3.0',
        '# TYPE sql_service_latency histogram',
        'sql_service_latency_bucket{le="1e+06"} 1',
        'sql_service_latency_bucket{le="+Inf"} 2',
        'sql_service_latency_sum 1.5e6',
        'sql_service_latency_count 2',
      ].join('\n'),
    );
    expect(stats).toEqual({ samples: 6, invalid: 0 });
    expect(out[0]).toEqual({
      name: 'sql_select_count',
      family: 'sql_select_count',
      type: 'counter',
      labels: { store: '1' },
      value: 42,
    });
    expect(out[1]).toMatchObject({ name: 'sql_conns', type: 'gauge', value: 3 });
    expect(out.slice(2).map((s) => [s.name, s.family, s.type, s.labels.le, s.value])).toEqual([
      ['sql_service_latency_bucket', 'sql_service_latency', 'histogram', '1e+06', 1],
      ['sql_service_latency_bucket', 'sql_service_latency', 'histogram', '+Inf', 2],
      ['sql_service_latency_sum', 'sql_service_latency', 'histogram', undefined, 1_500_000],
      ['sql_service_latency_count', 'sql_service_latency', 'histogram', undefined, 2],
    ]);
  });

  it('reads summaries with quantile labels', () => {
    const { out } = parseAll(
      [
        '# TYPE rpc_duration_seconds summary',
        'rpc_duration_seconds{quantile="0.5"} 4773',
        'rpc_duration_seconds{quantile="0.99"} 76656',
        'rpc_duration_seconds_sum 1.7560473e+07',
        'rpc_duration_seconds_count 2693',
      ].join('\n'),
    );
    expect(out.map((s) => [s.family, s.type, s.labels.quantile ?? null, s.value])).toEqual([
      ['rpc_duration_seconds', 'summary', '0.5', 4773],
      ['rpc_duration_seconds', 'summary', '0.99', 76656],
      ['rpc_duration_seconds', 'summary', null, 17_560_473],
      ['rpc_duration_seconds', 'summary', null, 2693],
    ]);
  });

  it('unescapes label values and keeps commas, braces and spaces inside quotes', () => {
    const { out } = parseAll('m{path="C:\\\\dir",msg="say \\"hi\\"\\nnow",odd="a,b} c",} 1 1712000000000\n');
    expect(out[0].labels).toEqual({ path: 'C:\\dir', msg: 'say "hi"\nnow', odd: 'a,b} c' });
    expect(out[0].timestamp).toBe(1712000000000);
    expect(out[0].type).toBe('untyped');
  });

  it('reads +Inf, -Inf, NaN and exponents; rejects hex and garbage', () => {
    expect(parseValue('+Inf')).toBe(Infinity);
    expect(parseValue('-Inf')).toBe(-Infinity);
    expect(parseValue('NaN')).toBeNaN();
    expect(parseValue('1.098855319644276e-10')).toBeCloseTo(1.098855319644276e-10, 20);
    expect(parseValue('6.4202351837184e+13')).toBe(64_202_351_837_184);
    expect(parseValue('0x10')).toBeNaN();
    const { out, stats } = parseAll('a NaN\nb +Inf\nc nope\nd{x="1" 2\n...\n9bad 1\n');
    expect(out.map((s) => s.name)).toEqual(['a', 'b']);
    expect(stats.invalid).toBe(4);
    expect(stats.firstInvalid).toBe('c nope');
  });

  it('reads OpenMetrics text (counter _total, # EOF, seconds timestamps)', () => {
    const { out, stats } = parseAll(
      [
        '# TYPE http_requests counter',
        '# UNIT http_requests requests',
        'http_requests_total{code="200"} 1027 1712000000.250',
        'http_requests_created{code="200"} 1711000000',
        '# EOF',
      ].join('\n'),
    );
    expect(stats.invalid).toBe(0);
    expect(out[0]).toMatchObject({ name: 'http_requests_total', family: 'http_requests', type: 'counter' });
    expect(out[0].timestamp).toBe(1712000000250);
  });

  it('filters by family before parsing labels', () => {
    let n = 0;
    const stats = parsePrometheusText(
      '# TYPE keep histogram\nkeep_bucket{le="1"} 1\nskip{broken 1\n',
      () => n++,
      (f) => f === 'keep',
    );
    expect(n).toBe(1);
    expect(stats.invalid).toBe(0); // the broken line was never looked at
  });

  it('reads a full real v19.2 /_status/vars ({store="1"} labels) without one invalid line', () => {
    const { out, stats } = parseAll(fixture('v19.2-status-vars.txt'));
    expect(stats.invalid).toBe(0);
    expect(stats.samples).toBe(2142); // every non-comment line of the 2,951
    const byName = (n: string) => out.filter((s) => s.name === n);
    expect(byName('capacity')[0]).toMatchObject({
      labels: { store: '1' },
      value: 64_202_351_837_184,
      type: 'gauge',
    });
    expect(byName('txn_commits')[0]).toMatchObject({ type: 'counter', value: 7472 });
    expect(byName('build_timestamp')[0].labels).toEqual({ tag: 'v19.2.2', go_version: 'go1.12.12' });
    const buckets = out.filter((s) => s.family === 'sql_distsql_service_latency_internal' && s.labels.le);
    expect(buckets.at(-1)?.labels.le).toBe('+Inf');
    // Cumulative buckets never decrease.
    for (let i = 1; i < buckets.length; i++)
      expect(buckets[i].value).toBeGreaterThanOrEqual(buckets[i - 1].value);
  });

  it('reads the newer {node_id, tenant} label set and the /metrics static labels', () => {
    const { out } = parseAll(fixture('v25.3-status-vars-tenant.txt'));
    expect(out.filter((s) => s.name === 'sql_insert_count').map((s) => s.labels)).toEqual([
      { node_id: '1', tenant: 'system' },
      { node_id: '1', tenant: 'demoapp' },
    ]);
    const m = parseAll(fixture('v25.3-metrics-static-labels.txt')).out.filter((s) => s.name === 'sql_count');
    expect(m.find((s) => s.labels.query_type === 'select' && !s.labels.query_internal)?.value).toBe(9);
  });

  it('reads socket bytes cut anywhere (inside lines, CRLF and multi-byte UTF-8) as the whole text', () => {
    const vars = fixture('v19.2-status-vars.txt');
    const text =
      vars.slice(0, vars.indexOf('\n', 6000) + 1) +
      '# HELP skip_me dürchgängig ✓\r\n# TYPE skip_me gauge\r\nskip_me{v="ü"} 1\r\n# TYPE m gauge\r\nm{v="ünïcödé ✓"} 2\r\nm{v="last"} 3';
    const whole = parseAll(text).out;
    expect(whole.at(-2)?.labels.v).toBe('ünïcödé ✓');
    const bytes = Buffer.from(text);
    for (const size of [1, 2, 3, 7, 64, 1000]) {
      const got: PromSample[] = [];
      const p = createPrometheusParser((s) => got.push(s));
      for (let i = 0; i < bytes.length; i += size) p.push(bytes.subarray(i, i + size));
      expect(p.end()).toEqual({ samples: whole.length, invalid: 0 });
      expect(got).toEqual(whole);
    }
    // Skipped families are matched on the bytes, also when a line is cut.
    const kept: string[] = [];
    const p = createPrometheusParser(
      (s) => kept.push(s.name),
      (f) => f !== 'skip_me',
    );
    for (let i = 0; i < bytes.length; i += 5) p.push(bytes.subarray(i, i + 5));
    p.end();
    expect(kept).not.toContain('skip_me');
    expect(kept.slice(-2)).toEqual(['m', 'm']);
  });
});

describe('allowlist, globs and the series cap', () => {
  it('keeps the DB Console families by default and applies include/exclude globs', () => {
    const f = compileFilter({
      default_allowlist: true,
      include: ['node_cpu_*', 'go_goroutines'],
      exclude: ['sys_*'],
    });
    expect(f('sql_select_count')).toBe(true);
    expect(f('sql_service_latency')).toBe(true);
    expect(f('node_cpu_seconds')).toBe(true);
    expect(f('go_goroutines')).toBe(true);
    expect(f('sys_rss')).toBe(false); // excluded wins
    expect(f('raft_ticks')).toBe(false);
    expect(compileFilter({ default_allowlist: false, include: [], exclude: [] })('sql_conns')).toBe(false);
  });

  it('drops new series past the cap, counts them, and keeps known ones', () => {
    const lim = new SeriesLimiter(2);
    expect(lim.admit('h', 'a', {}, 0)).toBe(true);
    expect(lim.admit('h', 'b', { x: '1' }, 0)).toBe(true);
    expect(lim.admit('h', 'c', {}, 0)).toBe(false);
    expect(lim.admit('h', 'b', { x: '1' }, 1)).toBe(true);
    lim.expire(3_600_002); // a and b unseen for over an hour... b was seen at 1
    expect(lim.size).toBe(0);
    expect(lim.admit('h', 'c', {}, 3_600_003)).toBe(true);
  });

  it('turns a real scrape into metric samples: node_id label → column, NaN dropped, ±Inf counted', () => {
    const text =
      fixture('v25.3-status-vars-tenant.txt') + 'sql_conns{node_id="2"} NaN\nsys_rss{node_id="2"} +Inf\n';
    const r = toMetricSamples(text, {
      now: 1000,
      instance: 'n1:8080',
      nodeId: null,
      labels: { env: 'prod' },
      accept: compileFilter({ default_allowlist: true, include: [], exclude: [] }),
      limiter: new SeriesLimiter(100),
    });
    expect(r.nonFinite).toBe(1);
    expect(r.dropped).toBe(0);
    const sel = r.samples.find((s) => s.name === 'sql_select_count');
    expect(sel).toEqual({
      kind: 'metric',
      ts: 1000,
      node_id: 1,
      host: 'n1:8080',
      name: 'sql_select_count',
      type: 'counter',
      labels: { tenant: 'demoapp', env: 'prod' },
      value: 9,
    } satisfies TMetricSample);
    expect(r.samples.some((s) => s.name === 'sys_cgocalls')).toBe(false); // not on the allowlist
    expect(r.samples.some((s) => s.name === 'sql_conns')).toBe(false); // NaN
  });

  it('fits series to the ingest limits: reserved labels removed, long values cut, too many labels dropped', () => {
    const many = Array.from({ length: 25 }, (_, i) => `l${i}="v"`).join(',');
    const r = toMetricSamples(`a{__name__="x",long="${'v'.repeat(300)}"} 1\nb{${many}} 2\n`, {
      now: 0,
      instance: 'h',
      nodeId: null,
      labels: {},
      accept: () => true,
      limiter: new SeriesLimiter(10),
    });
    expect(r.samples).toHaveLength(1);
    expect(r.samples[0].labels).toEqual({ long: 'v'.repeat(256) });
    expect(r.dropped).toBe(1);
  });

  it('keeps the v19.2 scrape to the allowlisted families (bounded cardinality)', () => {
    const r = toMetricSamples(fixture('v19.2-status-vars.txt'), {
      now: 0,
      instance: 'n1:8080',
      nodeId: 3,
      labels: {},
      accept: compileFilter({ default_allowlist: true, include: [], exclude: [] }),
      limiter: new SeriesLimiter(10_000),
    });
    const names = new Set(r.samples.map((s) => s.name));
    for (const n of [
      'sql_select_count',
      'sql_service_latency_bucket',
      'txn_aborts',
      'sql_conns',
      'capacity',
      'livebytes',
      'sys_cpu_combined_percent_normalized',
      'sys_rss',
      'replicas_leaseholders',
    ])
      expect(names).toContain(n);
    expect(r.samples.length).toBeLessThan(80);
    expect(r.samples.every((s) => s.node_id === 3)).toBe(true);
  });
});

describe('prometheus input', () => {
  const servers: http.Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
  });

  async function serve(handler: http.RequestListener): Promise<string> {
    const s = http.createServer(handler);
    servers.push(s);
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  }

  it('scrapes each CockroachDB node /_status/vars with no extra config; node id from /_status/details/local', async () => {
    const vars = fixture('v19.2-status-vars.txt');
    const seen: string[] = [];
    const url = await serve((req, res) => {
      seen.push(`${req.url} ${req.headers.cookie ?? ''}`);
      if (req.url === '/_status/vars') res.end(vars);
      else if (req.url === '/_status/details/local') res.end(JSON.stringify({ nodeId: 7 }));
      else res.writeHead(404).end();
    });
    const counters = { metricsDropped: 0 };
    const input = prometheusInput.create(ZPrometheusConfig.parse({}), {
      host: 'h',
      nodeId: null,
      version: 't',
      startedAt: 0,
      logger,
      outboxStats: () => ({ bytes: 0, pending: 0, evictions: 0 }),
      cockroachdb: { urls: [url], headers: { cookie: 'session=x' }, timeout: 2000 },
      counters,
    });
    expect(input.active).toBe(true);
    const samples = (await input.collect(5000)) as TMetricSample[];
    expect(seen).toContain('/_status/vars session=x');
    expect(samples.find((s) => s.name === 'txn_commits')).toMatchObject({
      node_id: 7,
      value: 7472,
      type: 'counter',
    });
    expect(counters.metricsDropped).toBe(0);
  });

  it('sends bearer and basic auth, static labels, honours per-target intervals, and counts capped series', async () => {
    const auth: string[] = [];
    const text =
      '# TYPE node_load1 gauge\nnode_load1 0.5\n# TYPE node_cpu_seconds counter\n' +
      Array.from({ length: 5 }, (_, i) => `node_cpu_seconds{cpu="${i}"} ${i}`).join('\n') +
      '\n';
    const url = await serve((req, res) => {
      auth.push(req.headers.authorization ?? '');
      res.end(text);
    });
    const counters = { metricsDropped: 0 };
    const input = prometheusInput.create(
      ZPrometheusConfig.parse({
        default_allowlist: false,
        include: ['node_*'],
        max_series: 4,
        labels: { dc: 'eu' },
        targets: [
          { url: `${url}/metrics`, bearer_token: 'tok', labels: { job: 'node' } },
          { url: `${url}/other`, basic_auth: { username: 'u', password: 'p' }, interval: '60s' },
        ],
      }),
      {
        host: 'h',
        nodeId: null,
        version: 't',
        startedAt: 0,
        logger,
        outboxStats: () => ({ bytes: 0, pending: 0, evictions: 0 }),
        counters,
      },
    );
    const first = (await input.collect(10_000)) as TMetricSample[];
    expect(auth.sort()).toEqual(['Basic ' + Buffer.from('u:p').toString('base64'), 'Bearer tok']);
    expect(first).toHaveLength(4); // 12 series offered, cap 4
    expect(counters.metricsDropped).toBe(8);
    expect(first[0].labels).toMatchObject({ dc: 'eu' });
    auth.length = 0;
    await input.collect(20_000); // /other waits for its 60 s interval
    expect(auth).toEqual(['Bearer tok']);
    expect(counters.metricsDropped).toBe(8 + 2);
  });

  it('fails the collection when no target answers, and is inactive without targets', async () => {
    const url = await serve((_req, res) => res.writeHead(500).end('boom'));
    const mk = (targets: unknown[]) =>
      prometheusInput.create(ZPrometheusConfig.parse({ targets }), {
        host: 'h',
        nodeId: null,
        version: 't',
        startedAt: 0,
        logger,
        outboxStats: () => ({ bytes: 0, pending: 0, evictions: 0 }),
      });
    await expect(mk([{ url }]).collect(0)).rejects.toThrow(/HTTP 500 boom/);
    expect(mk([]).active).toBe(false);
  });

  it('rejects a config with a bad glob or URL naming the field', () => {
    expect(ZPrometheusConfig.safeParse({ include: ['bad name'] }).success).toBe(false);
    expect(ZPrometheusConfig.safeParse({ targets: [{ url: 'ftp://x' }] }).success).toBe(false);
  });
});
