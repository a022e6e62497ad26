import { describe, expect, it } from 'vitest';
import { createConnectionGate } from './live-gate';

describe('live connection gate', () => {
  it('caps streams per user and per organization, and frees a slot on release', () => {
    const gate = createConnectionGate({ perUser: 2, perOrg: 3 });
    const a1 = gate.acquire('u1', 'o1');
    const a2 = gate.acquire('u1', 'o1');
    expect(gate.acquire('u1', 'o1')).toEqual({ refused: expect.stringMatching(/user \(limit 2\)/) });
    gate.acquire('u2', 'o1');
    expect(gate.acquire('u3', 'o1')).toEqual({ refused: expect.stringMatching(/organization \(limit 3\)/) });
    expect('release' in gate.acquire('u3', 'o2')).toBe(true);
    if ('release' in a1) {
      a1.release();
      a1.release();
    }
    expect('release' in gate.acquire('u4', 'o1')).toBe(true);
    expect(gate.acquire('u5', 'o1')).toHaveProperty('refused');
    expect(a2).toHaveProperty('release');
  });
});
