import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZNodeStatusSample } from '@clusterscope/schema';
import { startCockroachFixture, type CockroachFixtureServer } from '../../../test/cockroach-fixture';
import { silentLogger } from '../../lib/log';
import { parseCockroachTimestamp, parseNodeStatusOutput, splitCsvLine } from './cli-output';
import { ZCockroachdbConfig } from './config';
import { cockroachdbInput, collectCockroach } from './index';
import { buildNodeStatusSamples, nanosToMs, toLiveness } from './wire';
import { tempDir } from '../../../test/temp';

const fixture = (name: string) =>
  readFileSync(fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url)), 'utf8');
const json = (name: string): unknown => JSON.parse(fixture(name));
const NOW = 1_700_000_000_000;

describe('cockroach node status table parser', () => {
  const now = Date.UTC(2022, 8, 3, 22, 30);

  it('reads cockroach_node_status.txt exactly', () => {
    const s = parseNodeStatusOutput(fixture('cockroach_node_status.txt'), now);
    expect(s).toHaveLength(3);
    expect(s.map((x) => x.node_id)).toEqual([1, 2, 3]);
    expect(s[1]).toMatchObject({
      address: 'host2:26257',
      sql_address: 'host2:26257',
      build: 'v22.1.6',
      locality: '',
      started_at: Date.UTC(2022, 8, 3, 16, 24, 12, 42),
      updated_at: Date.UTC(2022, 8, 3, 22, 23, 9, 48),
      is_available: true,
      is_live: true,
      liveness: 'LIVE',
      membership: 'active',
      // The default table has no range columns: unknown, not 0.
      replicas: null,
      ranges: null,
      replicas_leaseholders: null,
      live_bytes: null,
      capacity: null,
    });
    for (const x of s) expect(ZNodeStatusSample.parse(x)).toEqual(x);
  });

  it('reads --all with every column', () => {
    const s = parseNodeStatusOutput(fixture('cockroach_node_status_all.txt'), now);
    expect(s).toHaveLength(3);
    expect(s[0]).toMatchObject({
      node_id: 1,
      replicas_leaders: 306,
      replicas_leaseholders: 306,
      ranges: 942,
      replicas: 942,
      ranges_unavailable: 0,
      ranges_underreplicated: 0,
      live_bytes: 246677946612,
      key_bytes: 47939212836,
      value_bytes: 221027696131,
      intent_bytes: 81398,
      system_bytes: 722359,
      membership: 'active',
      is_draining: false,
      updated_at: Date.UTC(2022, 8, 3, 22, 24, 7, 539),
    });
    expect(s[2]).toMatchObject({ replicas_leaders: 325, intent_bytes: 55249, system_bytes: 869542 });
    expect(s[0].uptime_s).toBeCloseTo((now - Date.UTC(2022, 8, 3, 16, 24, 12, 1)) / 1000, 3);
  });

  it('reads --ranges, --stats and --decommission', () => {
    const r = parseNodeStatusOutput(fixture('cockroach_node_status_ranges.txt'), now);
    expect(r.map((x) => [x.replicas_leaders, x.replicas_leaseholders, x.ranges])).toEqual([
      [306, 306, 941],
      [310, 310, 941],
      [325, 325, 941],
    ]);
    const st = parseNodeStatusOutput(fixture('cockroach_node_status_stats.txt'), now);
    expect(st[2]).toMatchObject({
      live_bytes: 246666008478,
      key_bytes: 47930560065,
      value_bytes: 220957658233,
      intent_bytes: 74382,
      system_bytes: 741028,
    });
    const d = parseNodeStatusOutput(fixture('cockroach_node_status_decommission.txt'), now);
    expect(d.map((x) => [x.replicas, x.membership, x.is_draining])).toEqual([
      [941, 'active', false],
      [941, 'active', false],
      [941, 'active', false],
    ]);
  });

  it('reads the 24-node table', () => {
    const s = parseNodeStatusOutput(fixture('cockroach_node_status_24_nodes.txt'), now);
    expect(s).toHaveLength(24);
    expect(s[23]).toMatchObject({
      node_id: 24,
      address: 'host3:26264',
      started_at: Date.UTC(2022, 8, 17, 18, 59, 47, 274),
    });
    expect(s[3].updated_at).toBe(Date.UTC(2022, 8, 17, 22, 43, 36, 739));
  });

  it('reads CSV with NULLs for a dead node and quoted locality', () => {
    const csv = [
      'id,address,sql_address,build,started_at,updated_at,locality,is_available,is_live,replicas_leaders,replicas_leaseholders,ranges,ranges_unavailable,ranges_underreplicated,live_bytes,key_bytes,value_bytes,intent_bytes,system_bytes,gossiped_replicas,is_decommissioning,membership,is_draining',
      '1,h1:26257,h1:26257,v22.1.6,2022-09-03 16:24:12.001861,2022-09-03 22:24:07.539077,"region=eu,zone=a",true,true,306,306,942,0,0,246677946612,47939212836,221027696131,81398,722359,941,false,active,false',
      '2,h2:26257,h2:26257,v22.1.6,2022-09-03 16:24:12.04249,2022-09-03 22:10:00.5,"region=eu,zone=b",false,false,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,false,active,false',
      '3,h3:26257,h3:26257,v22.1.6,2022-09-03 16:24:12.04249,2022-09-03 22:24:07.5,,true,true,1,1,942,0,0,1,1,1,1,1,941,false,active,true',
    ].join('\n');
    const s = parseNodeStatusOutput(csv, now);
    expect(s[0].locality).toBe('region=eu,zone=a');
    // Silent 14 min by the cluster's own clock (newest updated_at in the output) → DEAD; NULL cells → null.
    expect(s[1]).toMatchObject({
      is_live: false,
      is_available: false,
      liveness: 'DEAD',
      ranges: null,
      replicas_leaders: null,
      live_bytes: null,
      uptime_s: 0,
    });
    expect(s[2]).toMatchObject({ is_draining: true, liveness: 'DRAINING' });
  });

  it('names the line on bad input', () => {
    expect(() => parseNodeStatusOutput('hello', now)).toThrow(/no header/);
    const bad = fixture('cockroach_node_status_all.txt').replace('|    942 |', '|    x42 |');
    expect(() => parseNodeStatusOutput(bad, now)).toThrow(/line 4: column ranges "x42"/);
    expect(() => parseNodeStatusOutput('id | address\n1 | a | b', now)).toThrow(/line 2: 3 columns/);
  });

  it('parses helpers', () => {
    expect(splitCsvLine('a,"b,""c""",d')).toEqual(['a', 'b,"c"', 'd']);
    expect(parseCockroachTimestamp('2022-09-03 16:24:12.04249')).toBe(Date.UTC(2022, 8, 3, 16, 24, 12, 42));
    expect(parseCockroachTimestamp('nope')).toBeNull();
    expect(nanosToMs('1662222252001861000')).toBe(1662222252001);
    expect(toLiveness(6)).toBe('DRAINING');
    expect(toLiveness('NODE_STATUS_DECOMMISSIONING')).toBe('DECOMMISSIONING');
    expect(toLiveness('3')).toBe('LIVE');
    expect(toLiveness(42)).toBe('UNKNOWN');
  });
});

describe('real node status outputs (fixtures/real, see SOURCES)', () => {
  const now = Date.UTC(2026, 0, 1);
  const read = (name: string) => {
    const s = parseNodeStatusOutput(fixture(`real/${name}`), now);
    for (const x of s) expect(ZNodeStatusSample.parse(x)).toEqual(x);
    return s;
  };
  const states = (name: string) =>
    read(name)
      .map((x) => x.liveness)
      .join(' ');

  it('reads v19.2 `+----+` tables (old separator and trailing `|`) with unknown range columns', () => {
    const s = read('v19.2-node-status-single.txt');
    expect(s).toHaveLength(1);
    expect(s[0]).toMatchObject({
      node_id: 1,
      address: 'localhost:26257',
      build: 'v19.2.0-alpha.20190606-2479-gd98e0839dc',
      locality: 'region=us-east,az=1',
      started_at: Date.UTC(2019, 9, 1, 20, 4, 54, 308),
      liveness: 'LIVE',
      replicas: null,
      ranges: null,
    });
  });

  it.each([
    ['v19.2-node-status-follow-the-workload.txt', 'LIVE LIVE LIVE'],
    // Not DEAD: node 2 stopped (is_live=false, is_available=false) but updated 16 s before the newest row.
    ['v19.2-node-status-one-down.txt', 'LIVE UNAVAILABLE LIVE'],
    // Not DEAD: a majority is down, with fresh timestamps.
    ['v19.2-node-status-majority-down.txt', 'UNAVAILABLE UNAVAILABLE UNAVAILABLE'],
    // DEAD: node 1 updated_at 05:32:43, newest 05:42:28 → silent 9 min 45 s, past time_until_store_dead.
    ['v21.2-node-status-dead-draining.txt', 'DEAD LIVE LIVE LIVE'],
    ['v21.2-node-status-decommissioned.txt', 'LIVE LIVE LIVE DECOMMISSIONED DECOMMISSIONED'],
    ['v22.2-node-status-draining.txt', 'DRAINING LIVE LIVE'],
    ['v22.2-node-status-decommissioned-dead.txt', 'DECOMMISSIONED LIVE LIVE LIVE'],
  ])('reads the node states of %s: %s', (file, want) => {
    expect(states(file)).toBe(want);
  });

  it('reads v22.2 draining details', () => {
    const d = read('v22.2-node-status-draining.txt');
    expect(d[0]).toMatchObject({ replicas: 73, is_draining: true, build: 'v22.2.0-alpha.1', locality: '' });
  });

  it('reads the v2.1-era --decommission table (no sql_address column: unknown)', () => {
    const s = read('v19.2-node-status-decommission.txt');
    expect(s.map((x) => [x.node_id, x.liveness, x.replicas])).toEqual([
      [1, 'LIVE', 26],
      [2, 'LIVE', 26],
      [3, 'LIVE', 25],
      [4, 'LIVE', 25],
      [5, 'DECOMMISSIONING', 0],
    ]);
    expect(s[0]).toMatchObject({ address: '165.227.60.76:26257', sql_address: null, build: '91a299d' });
  });

  it('reports a not-live node without timestamps as UNAVAILABLE, never DEAD', () => {
    const s = parseNodeStatusOutput('id,is_available,is_live\n1,true,true\n2,false,false\n', now);
    expect(s.map((x) => x.liveness)).toEqual(['LIVE', 'UNAVAILABLE']);
  });
});

describe('/_status/nodes conversion', () => {
  const check = (nodes: unknown, liveness: unknown) => {
    const s = buildNodeStatusSamples(nodes, liveness, NOW);
    expect(s.map((x) => x.node_id)).toEqual([1, 2, 3, 4, 5]);
    for (const x of s) expect(ZNodeStatusSample.parse(x)).toEqual(x);
    // Node 1: two stores summed; ranges = sum(replicas).
    expect(s[0]).toMatchObject({
      ts: NOW,
      address: 'host1:26257',
      sql_address: 'host1:26257',
      locality: 'region=eu-west1,zone=eu-west1-b',
      build: 'v23.1.11',
      started_at: NOW - 3_600_000,
      updated_at: NOW - 2_000,
      liveness: 'LIVE',
      is_live: true,
      is_available: true,
      is_draining: false,
      membership: 'active',
      replicas: 603,
      ranges: 603,
      replicas_leaders: 203,
      replicas_leaseholders: 201,
      live_bytes: 160_000_000_003,
      capacity: 1_000_000_000_000,
      capacity_available: 799_999_999_997,
      capacity_used: 180_000_000_003,
      intent_bytes: 2003,
      system_bytes: 1_000_003,
      uptime_s: 3600,
    });
    expect(s[2]).toMatchObject({ ranges_underreplicated: 7, ranges_unavailable: 2 });
    expect(s[3]).toMatchObject({
      liveness: 'DRAINING',
      is_draining: true,
      is_live: true,
      is_available: true,
    });
    expect(s[4]).toMatchObject({
      liveness: 'DEAD',
      is_live: false,
      is_available: false,
      updated_at: NOW - 600_000,
    });
    return s;
  };

  it('reads camelCase wire JSON with int64 strings and liveness', () => {
    check(json('status-nodes.json'), json('liveness.json'));
  });

  it('reads the snake_case variant identically', () => {
    expect(check(json('status-nodes-snake.json'), json('liveness-snake.json'))).toEqual(
      buildNodeStatusSamples(json('status-nodes.json'), json('liveness.json'), NOW),
    );
  });

  it('falls back to livenessByNodeId when /_admin/v1/liveness is unavailable', () => {
    const s = buildNodeStatusSamples(json('status-nodes.json'), undefined, NOW);
    expect(s.map((x) => [x.liveness, x.is_available, x.is_live])).toEqual([
      ['LIVE', true, true],
      ['LIVE', true, true],
      ['LIVE', true, true],
      ['DRAINING', true, true],
      ['DEAD', false, false],
    ]);
  });

  it('is_available follows liveness expiration, not the status', () => {
    const later = buildNodeStatusSamples(json('status-nodes.json'), json('liveness.json'), NOW + 5_000);
    expect(later.every((x) => !x.is_available)).toBe(true);
  });

  it('rejects malformed bodies with a field name', () => {
    expect(() => buildNodeStatusSamples({ foo: 1 }, undefined, NOW)).toThrow(/"nodes" array/);
    expect(() => buildNodeStatusSamples({ nodes: [{ desc: { nodeId: 'x' } }] }, undefined, NOW)).toThrow(
      /nodes\[0\]\.desc\.nodeId/,
    );
  });
});

describe('cockroachdb input over HTTP', () => {
  let srv: CockroachFixtureServer;
  beforeAll(async () => {
    srv = await startCockroachFixture(
      () => ({ nodes: json('status-nodes.json'), liveness: json('liveness.json') }),
      {
        healthNodeId: 4,
      },
    );
  });
  afterAll(() => srv.close());

  it('collects from the first reachable URL and probes health', async () => {
    const cfg = ZCockroachdbConfig.parse({ urls: ['http://127.0.0.1:1', srv.url], cli: { enabled: false } });
    const { samples, source } = await collectCockroach(cfg, NOW);
    expect(source).toBe(srv.url);
    expect(samples).toEqual(buildNodeStatusSamples(json('status-nodes.json'), json('liveness.json'), NOW));
    expect(srv.requests).toEqual(expect.arrayContaining(['/_status/nodes', '/_admin/v1/liveness']));

    srv.notReady.add(4);
    const input = cockroachdbInput.create(cfg, {
      host: 'h',
      nodeId: null,
      version: 't',
      startedAt: NOW,
      logger: silentLogger,
      outboxStats: () => ({ bytes: 0, pending: 0, evictions: 0 }),
    });
    expect(await input.collect(NOW)).toHaveLength(5);
    expect(srv.requests).toContain('/health?ready=1');
    const checks = await input.check();
    expect(checks.find((c) => c.name.includes('127.0.0.1:1/_status'))?.ok).toBe(false);
    expect(checks.find((c) => c.name === `cockroachdb ${srv.url}/health?ready=1`)).toMatchObject({
      ok: true,
      detail: expect.stringMatching(/503/),
    });
  });

  it('fails with every error when nothing answers', async () => {
    const cfg = ZCockroachdbConfig.parse({
      urls: ['http://127.0.0.1:1'],
      cli: { path: '/nonexistent/cockroach' },
    });
    await expect(collectCockroach(cfg, NOW)).rejects.toThrow(/127\.0\.0\.1:1.*nonexistent\/cockroach/);
  });

  it('falls back to the CLI when HTTP is unreachable', async () => {
    // A stand-in "cockroach" binary: a shell script printing a recorded table.
    const { writeFileSync, chmodSync } = await import('node:fs');
    const dir = tempDir('crdb-cli');
    const bin = `${dir}/cockroach`;
    writeFileSync(`${dir}/out.txt`, fixture('cockroach_node_status_all.txt'));
    writeFileSync(bin, `#!/bin/sh\necho "$@" > ${dir}/args\ncat ${dir}/out.txt\n`);
    chmodSync(bin, 0o755);
    const cfg = ZCockroachdbConfig.parse({
      urls: ['http://127.0.0.1:1'],
      cli: { path: bin, args: ['--insecure'] },
    });
    const { samples, source } = await collectCockroach(cfg, NOW);
    expect(source).toBe('cli');
    expect(samples.map((s) => s.replicas_leaders)).toEqual([306, 311, 325]);
    expect(readFileSync(`${dir}/args`, 'utf8').trim()).toBe('node status --all --format=csv --insecure');
  });
});
