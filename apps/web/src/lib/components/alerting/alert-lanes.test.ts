import type { TAlertInstance } from '@clusterscope/schema';
import { describe, expect, it } from 'vitest';
import { buildAlertLanes, mergeSpans } from './alert-lanes';

const T0 = Date.UTC(2026, 10, 23, 10, 0);
const min = (m: number) => T0 + m * 60_000;

function alert(id: string, over: Partial<TAlertInstance> = {}): TAlertInstance {
  return {
    id,
    ruleId: 'r-stale',
    ruleName: 'Node stale',
    clusterId: 'c1',
    clusterName: 'prod',
    key: `node=${id}`,
    labels: { node: id },
    state: 'firing',
    severity: 'warning',
    summary: `No data from node ${id}`,
    runbookUrl: '',
    value: 1,
    activeAt: new Date(min(5)),
    firedAt: new Date(min(6)),
    resolvedAt: null,
    ackedBy: null,
    ackedAt: null,
    silenced: false,
    updatedAt: new Date(min(7)),
    ...over,
  };
}

describe('buildAlertLanes', () => {
  it('keeps a few alerts of a rule as their own lanes, worst first, with only what the timeline draws', () => {
    const lanes = buildAlertLanes(
      [
        alert('2', { state: 'resolved', resolvedAt: new Date(min(9)) }),
        alert('1', { ruleId: 'r-down', ruleName: 'Node down', severity: 'critical', summary: '' }),
      ],
      min(0),
    );
    expect(lanes).toEqual([
      {
        id: '1',
        title: 'Node down',
        subject: 'node 1',
        severity: 'critical',
        state: 'firing',
        count: 1,
        spans: [[min(5), null]],
      },
      {
        id: '2',
        title: 'No data from node 2',
        subject: 'node 2',
        severity: 'warning',
        state: 'resolved',
        count: 1,
        spans: [[min(5), min(9)]],
      },
    ]);
  });

  it('folds many alerts of one rule in one state into one lane whose spans are their union', () => {
    const firing = Array.from({ length: 50 }, (_, i) => alert(String(i + 1)));
    const resolved = [0, 1, 2, 3].map((i) =>
      alert(`r${i}`, {
        state: 'resolved',
        labels: { host: `h${i}` },
        activeAt: new Date(min(i < 2 ? 1 : 20)),
        resolvedAt: new Date(min(i < 2 ? 3 + i : 25)),
      }),
    );
    const lanes = buildAlertLanes([...resolved, ...firing], min(0));
    expect(lanes).toEqual([
      {
        id: null,
        title: 'Node stale',
        subject: '50 nodes',
        severity: 'warning',
        state: 'firing',
        count: 50,
        spans: [[min(5), null]],
      },
      {
        id: null,
        title: 'Node stale',
        subject: '4 instances',
        severity: 'warning',
        state: 'resolved',
        count: 4,
        spans: [
          [min(1), min(4)],
          [min(20), min(25)],
        ],
      },
    ]);
    // What the page carries: one lane instead of 50 instances.
    expect(JSON.stringify(lanes).length).toBeLessThan(400);
  });

  it('starts an alert without a start time at the range start', () => {
    const [lane] = buildAlertLanes([alert('1', { activeAt: null, firedAt: null })], min(-60));
    expect(lane.spans).toEqual([[min(-60), null]]);
  });
});

describe('mergeSpans', () => {
  it('merges overlapping and touching spans and absorbs everything after an open one', () => {
    expect(
      mergeSpans([
        [5, 7],
        [1, 3],
        [3, 4],
        [10, null],
        [12, 20],
      ]),
    ).toEqual([
      [1, 4],
      [5, 7],
      [10, null],
    ]);
  });

  it('collapses more than 20 disjoint spans into one from the first start to the last end', () => {
    const spans = Array.from({ length: 30 }, (_, i): [number, number] => [i * 10, i * 10 + 1]);
    expect(mergeSpans(spans)).toEqual([[0, 291]]);
  });
});
