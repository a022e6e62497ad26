import { describe, expect, it } from 'vitest';
import { createBatcher, type TBatcherOptions } from './batcher';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A batcher whose rounds are recorded with their start time; a round takes `roundMs`. */
function recording(opts: Partial<TBatcherOptions<string>> = {}, roundMs = 0) {
  const rounds: { items: string[]; at: number }[] = [];
  let active = 0;
  let overlapped = false;
  const batcher = createBatcher<string>({
    maxDelayMs: 10,
    maxRows: 1_000,
    minRoundMs: 0,
    busyBatches: 2,
    async flushRound(items) {
      if (active++ > 0) overlapped = true;
      rounds.push({ items, at: Date.now() });
      await sleep(roundMs);
      active--;
    },
    ...opts,
  });
  return { batcher, rounds, overlapped: () => overlapped };
}

describe('batcher', () => {
  it('coalesces items added together into one round after maxDelayMs', async () => {
    const { batcher, rounds } = recording();
    const t0 = Date.now();
    batcher.add('a', { rows: 1 });
    batcher.add('b', { rows: 2 });
    expect(rounds).toEqual([]);
    await sleep(40);
    expect(rounds.map((r) => r.items)).toEqual([['a', 'b']]);
    expect(rounds[0].at - t0).toBeGreaterThanOrEqual(9);
  });

  it('starts a round at once when pending rows reach maxRows', async () => {
    const { batcher, rounds } = recording({ maxDelayMs: 10_000, maxRows: 3 });
    batcher.add('a', { rows: 2 });
    batcher.add('b', { rows: 1 });
    await sleep(5);
    expect(rounds.map((r) => r.items)).toEqual([['a', 'b']]);
  });

  it('items added during a round go into the next one; rounds never overlap', async () => {
    const { batcher, rounds, overlapped } = recording({ maxDelayMs: 1 }, 30);
    batcher.add('a', { rows: 1 });
    await sleep(10);
    batcher.add('b', { rows: 1 });
    batcher.add('c', { rows: 1 });
    await batcher.flush();
    expect(rounds.map((r) => r.items)).toEqual([['a'], ['b', 'c']]);
    expect(overlapped()).toBe(false);
  });

  it('spaces a round after a busy one by minRoundMs, except for a late item', async () => {
    const { batcher, rounds } = recording({ maxDelayMs: 1, minRoundMs: 2_000 });
    batcher.add('a', { rows: 1, newest: Date.now() });
    batcher.add('b', { rows: 1, newest: Date.now() });
    await sleep(10);
    batcher.add('c', { rows: 1, newest: Date.now() });
    await sleep(30);
    expect(rounds.map((r) => r.items)).toEqual([['a', 'b']]);
    batcher.add('late', { rows: 1, newest: Date.now() - 5_000 });
    await sleep(10);
    expect(rounds.map((r) => r.items)).toEqual([
      ['a', 'b'],
      ['c', 'late'],
    ]);
  });

  it('does not hold a round after a quiet one (fewer than busyBatches items)', async () => {
    const { batcher, rounds } = recording({ maxDelayMs: 1, minRoundMs: 1_000 });
    batcher.add('a', { rows: 1, newest: Date.now() });
    await sleep(10);
    batcher.add('b', { rows: 1, newest: Date.now() });
    await sleep(10);
    expect(rounds.map((r) => r.items)).toEqual([['a'], ['b']]);
  });

  it('flush and close write what is pending without waiting for minRoundMs; close marks it closed', async () => {
    const { batcher, rounds } = recording({ maxDelayMs: 1, minRoundMs: 10_000 });
    batcher.add('a', { rows: 1 });
    batcher.add('b', { rows: 1 });
    await sleep(10);
    batcher.add('c', { rows: 1 });
    const t0 = Date.now();
    await batcher.flush();
    expect(rounds.map((r) => r.items)).toEqual([['a', 'b'], ['c']]);
    batcher.add('d', { rows: 1 });
    batcher.add('e', { rows: 1 });
    await sleep(5);
    batcher.add('f', { rows: 1 });
    expect(batcher.closed).toBe(false);
    await batcher.close();
    expect(batcher.closed).toBe(true);
    expect(rounds.map((r) => r.items)).toEqual([['a', 'b'], ['c'], ['d', 'e'], ['f']]);
    expect(Date.now() - t0).toBeLessThan(5_000);
  });
});
