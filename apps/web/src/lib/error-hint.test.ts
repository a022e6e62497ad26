import { describe, expect, it } from 'vitest';
import { errorHint } from './error-hint';

describe('errorHint', () => {
  it('sends a bad cluster, node or run id back to its list', () => {
    expect(errorHint(404, '/demo/clusters/nope')).toMatchObject({
      title: 'Cluster not found',
      href: '/demo/clusters',
    });
    expect(errorHint(404, '/demo/clusters/c1/nodes/99')).toMatchObject({
      title: 'Node not found',
      href: '/demo/clusters/c1',
    });
    expect(errorHint(404, '/demo/runs/x')).toMatchObject({ title: 'Run not found', href: '/demo/runs' });
  });
  it('explains how to pick runs for an empty compare', () => {
    expect(errorHint(400, '/demo/compare')).toMatchObject({
      title: 'Nothing to compare',
      href: '/demo/runs',
    });
  });
  it('names the field of a 400 and falls back to the dashboard outside an org', () => {
    expect(errorHint(400, '/demo/runs', 'from: invalid date').advice).toBe('Fix: from: invalid date');
    expect(errorHint(404, '/nope')).toMatchObject({ title: 'Page not found', href: '/' });
  });
});
