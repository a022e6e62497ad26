import { describe, expect, it } from 'vitest';
import { byteAxis, isOffScale, niceStep, timeAxisLabels, valueAxis } from './axes';

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;
const ticks = (a: { min: number; max: number; interval: number; format: (v: number) => string }) => {
  const out: string[] = [];
  for (let v = a.min; v <= a.max + 1e-6; v += a.interval) out.push(a.format(v));
  return out;
};

describe('niceStep', () => {
  it('picks 1, 2, 2.5, 5 × 10^k', () => {
    expect(niceStep(6.5)).toBe(2); // 6.5 / 4 = 1.63 → 2
    expect(niceStep(150)).toBe(50); // 37.5 → 50
    expect(niceStep(10)).toBe(2.5);
    expect(niceStep(0.4)).toBe(0.1);
    expect(niceStep(0)).toBe(1);
  });
});

describe('byteAxis', () => {
  it('ticks round GiB for memory', () => {
    // 7e9 B = 6.52 GiB → step 2 GiB, top 8 GiB.
    const a = byteAxis(7e9);
    expect(a).toMatchObject({ min: 0, max: 8 * GiB, interval: 2 * GiB });
    expect(ticks(a)).toEqual(['0 GiB', '2 GiB', '4 GiB', '6 GiB', '8 GiB']);
  });
  it('ticks round MiB/s for throughput', () => {
    expect(ticks(byteAxis(150 * MiB, true))).toEqual(['0 MiB/s', '50 MiB/s', '100 MiB/s', '150 MiB/s']);
    expect(ticks(byteAxis(1.2 * GiB))).toEqual(['0 GiB', '0.5 GiB', '1 GiB', '1.5 GiB']);
  });
  it('survives empty data', () => {
    expect(byteAxis(0)).toMatchObject({ min: 0, max: 1, interval: 0.25 });
    expect(byteAxis(Number.NaN).max).toBe(1);
  });
});

describe('valueAxis', () => {
  it('gives counts integer steps', () => {
    expect(valueAxis(3, { integer: true })).toEqual({ min: 0, max: 3, interval: 1 });
    expect(valueAxis(1, { integer: true })).toEqual({ min: 0, max: 1, interval: 1 });
    expect(valueAxis(10, { integer: true })).toEqual({ min: 0, max: 10, interval: 2 }); // 2.5 → 2
    expect(valueAxis(250, { integer: true })).toEqual({ min: 0, max: 300, interval: 100 });
    expect(valueAxis(3.9)).toEqual({ min: 0, max: 4, interval: 1 });
  });
});

describe('timeAxisLabels', () => {
  it('shows month and day on 7d/30d axes, times on short ones', () => {
    expect(timeAxisLabels(7 * 86_400_000).day).toBe('{MMM} {d}');
    expect(timeAxisLabels(7 * 86_400_000).hour).toBe('{MMM} {d} {HH}:{mm}');
    expect(timeAxisLabels(3_600_000).minute).toBe('{HH}:{mm}');
    expect(timeAxisLabels(86_400_000).day).toBe('{MMM} {d}');
  });
});

describe('isOffScale', () => {
  it('takes limits more than 3× the data off the scale', () => {
    expect(isOffScale(16 * GiB, 2 * GiB)).toBe(true);
    expect(isOffScale(4, 3.9)).toBe(false);
    expect(isOffScale(4, 0)).toBe(true);
    expect(isOffScale(Number.NaN, 1)).toBe(false);
  });
});
