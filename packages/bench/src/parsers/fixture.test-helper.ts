import { readFileSync } from 'node:fs';
import type { TParseResult } from '@clusterscope/schema';
import { expect } from 'vitest';

/** Reads a recorded output from packages/bench/fixtures (tests only). */
export function readFixture(name: string): string {
  return readFileSync(new URL(`../../fixtures/${name}`, import.meta.url), 'utf8');
}

/** Summary metric value by name; fails the test when absent. */
export function metricOf(result: TParseResult, name: string): number {
  const m = result.summary.find((x) => x.name === name);
  if (!m) throw new Error(`metric ${name} missing; have ${result.summary.map((x) => x.name).join(', ')}`);
  return m.value;
}

/** Expects exactly these summary metrics (values, or `expect.closeTo(…)`); fails naming any that is missing. */
export function expectMetrics(result: TParseResult, want: Record<string, unknown>): void {
  const got = Object.fromEntries(Object.keys(want).map((name) => [name, metricOf(result, name)]));
  expect(got).toEqual(want);
}
