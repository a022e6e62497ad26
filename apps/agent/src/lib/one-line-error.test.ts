import { INPUT_ERROR_MAX } from '@clusterscope/schema';
import { describe, expect, it } from 'vitest';
import { toOneLineError } from './one-line-error';

describe('toOneLineError', () => {
  it('keeps the host and port but drops URL credentials', () => {
    expect(
      toOneLineError(
        'GET http://root:s3cret@10.0.0.4:8080/_status/nodes: connect ECONNREFUSED 10.0.0.4:8080',
      ),
    ).toBe('GET http://***@10.0.0.4:8080/_status/nodes: connect ECONNREFUSED 10.0.0.4:8080');
  });
  it('drops bearer tokens, secret query parameters, cs_ tokens and configured secrets', () => {
    const s = toOneLineError(
      'HTTP 401 for https://h:8080/x?user=a&password=hunter2&token=abc\nAuthorization: Bearer eyJhbGciOiJIUzI1NiJ9.x session=Zq9Kcookie1 cs_AbCdEf123456',
      ['Zq9Kcookie1'],
    );
    expect(s).not.toMatch(/hunter2|abc\b|eyJhbGci|Zq9Kcookie1|AbCdEf123456|\n/);
    expect(s).toContain('user=a');
    expect(s).toContain('https://h:8080');
  });
  it('is one bounded line, in linear time on hostile input', () => {
    const long = `${'a@'.repeat(50_000)}\n${'x://'.repeat(50_000)}`;
    const t0 = performance.now();
    const s = toOneLineError(long);
    expect(performance.now() - t0).toBeLessThan(100);
    expect(s.length).toBeLessThanOrEqual(INPUT_ERROR_MAX);
    expect(s).not.toContain('\n');
  });
});
