import { VERDICT_RULE, type TRunComparison } from '@clusterscope/schema';
import { describe, expect, it } from 'vitest';
import { renderRunReport, type TReportFacts } from './report';

const RUN_ID = 'cmrun0000000000000abcdef01';

/** A run of branch `branch` without a baseline: its report says what to pass. */
function noBaseline(branch: string | null, baselineBranch = 'main'): TReportFacts {
  const comparison: TRunComparison = {
    run_id: RUN_ID,
    baseline: {
      kind: 'branch',
      ref: baselineBranch,
      name: `${baselineBranch} (no earlier runs)`,
      branch: baselineBranch,
      window: 3,
      run_ids: [],
    },
    verdicts: [],
    regression: false,
    envHealthy: null,
    env_reasons: [],
    verdict: 'no_baseline',
    reason: 'no earlier runs to compare with',
    rule: VERDICT_RULE,
    warning: null,
    machine_warning: null,
    confirmation: null,
    confirms: null,
  };
  return {
    run: {
      id: RUN_ID,
      status: 'succeeded',
      cluster: 'ci',
      workload: 'cpu',
      tool: 'sysbench',
      branch,
      sha: null,
    },
    comparison,
    origin: 'https://cs.example',
    org: 'acme',
  };
}

describe('renderRunReport baseline note', () => {
  it('sets the flags as code spans in markdown, without escaped backticks or pipes', () => {
    const r = renderRunReport(noBaseline('feature'));
    expect(r.markdown.split('\n')).toContain(
      'No baseline: branch main has no earlier succeeded runs of this workload before this one. ' +
        'Run the workload on main first, or pass `--baseline RUN_ID|BRANCH`.',
    );
    expect(r.markdown).not.toContain('\\`');
    expect(r.baseline_note).toBe(
      'No baseline: branch main has no earlier succeeded runs of this workload before this one. ' +
        'Run the workload on main first, or pass `--baseline RUN_ID|BRANCH`.',
    );
  });

  it('without a branch: both flags are code spans', () => {
    const r = renderRunReport(noBaseline(null));
    expect(r.markdown.split('\n')).toContain(
      'No baseline: this run has no branch, and branch main has no earlier runs of this workload. ' +
        'Pass `--branch` (CI sets it from GITHUB_HEAD_REF/GITHUB_REF_NAME or CI_COMMIT_REF_NAME), ' +
        'or `--baseline RUN_ID|BRANCH` to choose one.',
    );
    expect(r.markdown).not.toContain('\\`');
  });

  it('still escapes a CI-supplied branch name in markdown (the plain note keeps it as it is)', () => {
    const r = renderRunReport(noBaseline('x', 'rel_*`1`*'));
    expect(r.markdown).toContain('No baseline: branch rel\\_\\*\\`1\\`\\* has no earlier');
    expect(r.baseline_note).toContain('No baseline: branch rel_*`1`* has no earlier');
  });
});
