import { previewHeadline } from './preview';
import { describe, expect, it } from 'vitest';
import {
  actorLabel,
  describeSeries,
  filterQuery,
  formatAlertValue,
  parseFilters,
  round3,
  sortAlerts,
  subject,
} from './format';

const t = (m: number) => new Date(Date.UTC(2026, 10, 23, 10, m));

describe('sortAlerts', () => {
  it('puts firing first, worst severity first, oldest first; resolved newest first', () => {
    const alerts = [
      { id: 'r-old', state: 'resolved', severity: 'critical', resolvedAt: t(1) },
      { id: 'p', state: 'pending', severity: 'critical', activeAt: t(2) },
      { id: 'f-warn', state: 'firing', severity: 'warning', firedAt: t(0) },
      { id: 'f-crit-new', state: 'firing', severity: 'critical', firedAt: t(9) },
      { id: 'f-crit-old', state: 'firing', severity: 'critical', firedAt: t(3).toISOString() },
      { id: 'r-new', state: 'resolved', severity: 'info', resolvedAt: t(8) },
    ];
    expect(sortAlerts(alerts).map((a) => a.id)).toEqual([
      'f-crit-old',
      'f-crit-new',
      'f-warn',
      'p',
      'r-old',
      'r-new',
    ]);
  });
});

describe('actorLabel', () => {
  const members = [
    { user: { id: 'u1', name: 'Ada', email: 'ada@x.io' } },
    { user: { id: 'u2', email: 'b@x.io' } },
  ];
  it('names members, tokens and unknown users', () => {
    expect(actorLabel('user:u1', members)).toBe('Ada');
    expect(actorLabel('user:u2', members)).toBe('b@x.io');
    expect(actorLabel('user:gone', members)).toBe('a former member');
    expect(actorLabel('token:t1', members)).toBe('an API token');
    expect(actorLabel(null, members)).toBe('');
  });
});

describe('subject', () => {
  it('names the node, cgroup or agent', () => {
    expect(subject({ labels: { node: '2' } })).toBe('node 2');
    expect(subject({ labels: { host: 'h', cgroup: 'db' } })).toBe('h / db');
    expect(subject({ labels: {}, key: '' })).toBe('cluster');
  });
});

describe('URL filters', () => {
  it('round-trips and drops unknown values', () => {
    const f = parseFilters(
      new URLSearchParams('state=firing,bogus,firing,resolved&severity=critical&cluster=c_1'),
    );
    expect(f).toEqual({ state: ['firing', 'resolved'], severity: ['critical'], clusterId: 'c_1' });
    expect(filterQuery(f)).toBe('?state=firing%2Cresolved&severity=critical&cluster=c_1');
    expect(parseFilters(new URLSearchParams('cluster=../x')).clusterId).toBe('');
    expect(filterQuery({ state: [], severity: [], clusterId: '' })).toBe('');
  });
});

describe('describeSeries', () => {
  it('writes node/cgroup series and metric rules in PromQL-like words', () => {
    expect(describeSeries({ series: 'node.down', aggregation: 'node' })).toBe('node.down');
    expect(describeSeries({ series: 'node.ranges_unavailable', aggregation: 'sum' })).toBe(
      'sum(node.ranges_unavailable)',
    );
    expect(
      describeSeries({
        series: 'metric',
        aggregation: 'node',
        metric: { name: 'sql_service_latency', fn: 'quantile', quantile: 0.99, windowS: 120 },
      }),
    ).toBe('histogram_quantile(0.99, rate(sql_service_latency_bucket[120s]))');
    expect(
      describeSeries({
        series: 'metric',
        aggregation: 'sum',
        metric: { name: 'req', fn: 'rate', matchers: { code: '500' }, windowS: 60 },
      }),
    ).toBe('sum(rate(req{code="500"}[60s]))');
  });
});

describe('formatAlertValue', () => {
  it('rounds sanely and names the unit', () => {
    expect(formatAlertValue(94.67335414374247, '%')).toBe('94.7 %');
    expect(formatAlertValue(3, '')).toBe('3');
    expect(formatAlertValue(0.012345, '')).toBe('0.0123');
    expect(formatAlertValue(1.5 * 1024 ** 3, 'B')).toBe('1.5 GiB');
    expect(formatAlertValue(12 * 1024 ** 2, 'B/s')).toBe('12 MiB/s');
    expect(formatAlertValue(2.3456, 'cores')).toBe('2.35 cores');
    expect(formatAlertValue(null, '%')).toBe('—');
    expect(round3(1234.5)).toBe('1235');
    expect(round3(-0.5)).toBe('-0.5');
  });
});

describe('previewHeadline', () => {
  it('counts the subjects the rule would fire on, named by the series', () => {
    expect(previewHeadline({ total: 5, firing: 5 }, 'node.down', 'node')).toBe(
      'Would fire on 5 of 5 nodes now',
    );
    expect(previewHeadline({ total: 2, firing: 0 }, 'cgroup.mem_pct', 'node')).toBe(
      'Would fire on none of 2 cgroups now',
    );
    expect(previewHeadline({ total: 1, firing: 1 }, 'node.replicas', 'sum')).toBe(
      'Would fire on 1 of 1 cluster now',
    );
    expect(previewHeadline({ total: 3, firing: 1 }, 'agent.input_failures', 'node')).toBe(
      'Would fire on 1 of 3 inputs now',
    );
    expect(previewHeadline({ total: 0, firing: 0 }, 'metric', 'node')).toMatch(/^No node has a reading/);
  });
});
