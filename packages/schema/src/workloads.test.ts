import { describe, expect, it } from 'vitest';
import { classifyTarget, redactTarget, validateWorkload } from './workloads';

describe('workload validation', () => {
  it('applies per-tool defaults', () => {
    const r = validateWorkload({ tool: 'pgbench', params: { clients: 2 }, target: 'postgresql://u@h/db' });
    expect(r).toEqual({
      ok: true,
      params: { clients: 2, jobs: 1, builtin: 'tpcb-like', progress: 1, init: false },
    });
  });

  it('names the field of a bad parameter and of a target of the wrong kind', () => {
    const bad = validateWorkload({ tool: 'pgbench', params: { clients: 0, extra: 1 }, target: '' });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.issues.map((i) => i.path)).toEqual(expect.arrayContaining(['params.clients']));
    const t = validateWorkload({ tool: 'hey', params: {}, target: 'postgresql://u@h/db' });
    expect(t).toEqual({ ok: false, issues: [{ path: 'target', message: expect.stringContaining('http') }] });
    expect(validateWorkload({ tool: 'sysbench', params: { test: 'cpu' }, target: '' }).ok).toBe(true);
    expect(validateWorkload({ tool: 'sysbench', params: { test: 'fileio' }, target: '' }).ok).toBe(false);
    expect(
      validateWorkload({ tool: 'wrk', params: { threads: 4, connections: 2 }, target: 'http://h/' }).ok,
    ).toBe(false);
  });

  it('classifies targets; hostile strings are of no accepted form', () => {
    expect(classifyTarget('secret:prod-db')).toBe('secret');
    expect(classifyTarget('/var/tmp/x')).toBe('path');
    expect(classifyTarget('http://127.0.0.1:3000/api/health')).toBe('http');
    for (const t of [
      '--foo',
      '; rm -rf /',
      '$(id)',
      'a\nb',
      '-c 1 --file=/etc/passwd',
      'secret:../x',
      'file:///etc/passwd',
      'postgresql://h/db?service=x',
    ])
      expect(classifyTarget(t), t).toBeNull();
  });

  it('redacts URL passwords', () => {
    expect(redactTarget('postgresql://u:secret@h:5432/db')).toBe('postgresql://u:***@h:5432/db');
    expect(redactTarget('secret:x')).toBe('secret:x');
  });
});
