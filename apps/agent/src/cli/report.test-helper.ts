import type { TRunReport } from './api-client';

/** A report as GET /runs/{id}/report answers it (the fake APIs serve this; the server renders the real one). */
export function makeReport(regression: boolean, over: Partial<TRunReport> = {}): TRunReport {
  const verdict = regression ? 'regression' : 'noise';
  const words = regression ? 'regression' : 'no change';
  return {
    run_id: 'run_1',
    run_url: 'https://cs.example.com/acme/runs/run_1',
    compare_url: 'https://cs.example.com/acme/compare?runs=run_1&baseline=main',
    cluster: 'ci',
    workload: 'cpu',
    tool: 'sysbench',
    branch: 'feature',
    sha: 'abc1234',
    status: 'succeeded',
    verdict,
    verdict_words: words,
    regression,
    confirmation: null,
    confirms: null,
    precision: null,
    regressions: regression ? ['events_per_s'] : [],
    reason: regression ? 'regressed: events_per_s -12.5%' : 'no metric changed significantly by 9% or more',
    baseline: {
      kind: 'branch',
      ref: 'main',
      name: 'main (last 3 runs)',
      branch: 'main',
      window: 3,
      run_ids: ['b1', 'b2', 'b3'],
    },
    baseline_note: 'Baseline: main (last 3 runs), the latest succeeded runs of this workload on branch main.',
    warnings: [],
    metrics: [
      {
        metric: 'events_per_s',
        label: 'Events/s',
        unit: 'events/s',
        baseline: 1000,
        value: regression ? 875 : 1004,
        change_pct: regression ? -12.5 : 0.4,
        ci95: regression ? [-15, -10] : [-1, 1.8],
        p_value: regression ? 0.001 : 0.6,
        test: "Welch's t",
        verdict,
        reason: regression ? '-12.50% (p=0.001, welch)' : 'p=0.6 ≥ 0.05',
      },
      {
        metric: 'lat_max_ms',
        label: 'Latency max',
        unit: 'ms',
        baseline: 3,
        value: 4,
        change_pct: 33,
        ci95: null,
        p_value: null,
        test: 'summary values',
        verdict: null,
        reason: 'summary only; a single min/max value is not judged',
      },
    ],
    rule: 'A metric regresses …',
    markdown: `### Clusterscope: ci/cpu — ${words}\n\n| Metric | … |\n`,
    text: `ci/cpu: ${words} vs main (last 3 runs)\nrun:     https://cs.example.com/acme/runs/run_1\ncompare: https://cs.example.com/acme/compare?runs=run_1&baseline=main\n`,
    ...over,
  };
}
