import { describe, expect, it } from 'vitest';
import { toFixedReason, toSlackText, type TNotification } from './channels';

const note = (over: {
  title?: string;
  summary?: string;
  rule?: string;
  runbookUrl?: string;
}): TNotification => ({
  status: 'firing',
  title: over.title ?? 'Firing: node down',
  org: 'acme',
  orgId: 'o',
  clusterId: 'c',
  clusterName: 'prod',
  url: 'https://cs.example.com/acme/clusters/c',
  groupKey: 'g',
  alerts: [
    {
      id: 'a',
      status: 'firing',
      severity: 'critical',
      rule: over.rule ?? 'node down',
      ruleId: 'r',
      summary: over.summary ?? '',
      labels: {},
      value: null,
      startsAt: '2026-12-01T00:00:00Z',
      endsAt: null,
      runbookUrl: over.runbookUrl ?? '',
      acked: false,
    },
  ],
});

describe('toSlackText', () => {
  it.each([
    ['@channel wake up', /@channel/],
    ['@here', /@here/],
    ['@everyone', /@everyone/],
    ['<!channel> and <!here|here>', /<!/],
    ['<@U024BE7LH>', /<@/],
    ['[log in again](https://evil.example/login)', /\]\(/],
    ['<https://evil.example/login|Clusterscope login>', /<https:\/\/evil/],
    ['see https://evil.example/login', /https:\/\/evil/],
    ['see www.evil.example', /www\.evil/],
  ])('a name of %j neither mentions nor links', (name, bad) => {
    for (const n of [note({ rule: name }), note({ title: name }), note({ summary: name })]) {
      const text = toSlackText(n);
      expect(text).not.toMatch(bad);
      // What remains is exactly our own link to the cluster page.
      expect(text.match(/<[^>]*>/g)).toEqual([
        '<https://cs.example.com/acme/clusters/c|open in Clusterscope>',
      ]);
    }
  });

  it('keeps the words readable and the runbook a link that cannot be ended early', () => {
    const text = toSlackText(
      note({ summary: 'disk 93% on n1', runbookUrl: 'https://wiki.example/r?a=1|x>y' }),
    );
    expect(text).toContain('CRITICAL: disk 93% on n1');
    expect(text).toContain('<https://wiki.example/r?a=1%7Cx%3Ey|runbook>');
  });
});

describe('toFixedReason', () => {
  it.each([
    ['HTTP 500: SECRET-INTERNAL-DATA: root:x:0:0', 'HTTP 500'],
    ['HTTP 404', 'HTTP 404'],
    ['connect ECONNREFUSED 127.0.0.1:5432', 'delivery failed'],
    [
      'push failed: write EPROTO 0A00010B:SSL routines:ssl3_get_record:wrong version number',
      'delivery failed',
    ],
    ['push failed: HTTP 410', 'push failed: HTTP 410'],
    ['push failed: connection failed', 'push failed: connection failed'],
    ['destination refused: not a public address', 'destination refused: not a public address'],
    ['SMTP 535', 'SMTP 535'],
    ['no push subscriptions', 'no push subscriptions'],
    [null, null],
  ])('%j is shown as %j', (stored, shown) => expect(toFixedReason(stored)).toBe(shown));
});
