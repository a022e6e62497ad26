import { readFileSync, rmSync } from 'node:fs';
import { parseOutput, ParseError } from '@clusterscope/bench';
import { afterAll, describe, expect, it } from 'vitest';
import { bootWorkerFromSource } from '../testing';
import { createParser, inThreadParser, ParseTimeout, type TParser } from './parse-pool';
import { decodeJsonBody } from './json-body';
import { createLogger } from '../core/logger';

// The worker runs from source through tsx (production runs the bundled parse-worker.js).
const { entry, dir } = bootWorkerFromSource('ingest/parse-worker.ts');
const fixture = (name: string) =>
  readFileSync(new URL(`../../../bench/fixtures/${name}`, import.meta.url), 'utf8');

const parsers: TParser[] = [];
const open = (budgetMs: number) => {
  const p = createParser({ entry, budgetMs, log: createLogger({ level: 'silent' }) });
  parsers.push(p);
  return p;
};
afterAll(async () => {
  await Promise.all(parsers.map((p) => p.close()));
  rmSync(dir, { recursive: true, force: true });
});

/** The longest the event loop was blocked (ms) while `work` ran. */
async function maxLag(work: Promise<unknown>): Promise<number> {
  let worst = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last - 5);
    last = now;
  }, 5);
  await work.catch(() => undefined);
  clearInterval(timer);
  return worst;
}

describe('parse worker', { timeout: 60_000 }, () => {
  it('parses and detects exactly like the in-thread parser', async () => {
    const p = open(30_000);
    const text = fixture('pgbench_tpcb.txt');
    expect(await p.parse(text)).toEqual(parseOutput(text));
    expect(await p.parse(text, 'pgbench')).toEqual(parseOutput(text, 'pgbench'));
    expect(await p.detect(fixture('hey.txt'))).toBe('hey');
    expect(await p.detect('nothing here')).toBeNull();
  });

  it('passes ParseError through with what was recognised', async () => {
    const p = open(30_000);
    const err = await p.parse('hello\n').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ParseError);
    expect((err as ParseError).recognised).toMatch(/no known tool/);
  });

  it('stops an output past its budget, answers ParseTimeout, and parses the next on a fresh worker', async () => {
    const p = open(300);
    // 16 MB of summary lines: seconds of (linear) parsing, far past the 300 ms budget.
    const big = 'Summary:\n' + '  Total: 1 secs\n'.repeat(1_000_000);
    await p.detect('warm-up');
    const slow = p.parse(big, 'hey');
    const lag = await maxLag(slow);
    await expect(slow).rejects.toBeInstanceOf(ParseTimeout);
    await expect(slow).rejects.toThrow(/could not be parsed in time/);
    // The event loop only copied the string: it kept answering timers throughout.
    expect(lag).toBeLessThan(200);
    expect(await p.detect(fixture('wrk_latency.txt'))).toBe('wrk');
  });

  it('queues outputs and gives each its own budget', async () => {
    const p = open(30_000);
    const texts = ['hey.txt', 'wrk_plain.txt', 'fio_randrw.txt'].map(fixture);
    const tools = await Promise.all(texts.map((t) => p.parse(t).then((r) => r.tool)));
    expect(tools).toEqual(['hey', 'wrk', 'fio']);
  });

  it('decodes JSON bodies like the in-thread decoder: parsed, too deep, too large besides output, bad syntax', async () => {
    const p = open(30_000);
    const limits = { maxDepth: 64, bulkKey: 'output', maxOtherBytes: 1024 };
    const bodies = [
      `{"tool":"hey","output":"${'x'.repeat(4000)}"}`,
      `\ufeff{"a":[1,{"b":"\u00e9"}]}`,
      `{"a":${'['.repeat(65)}${']'.repeat(65)}}`,
      `{"output":"x","junk":[${'0,'.repeat(2000)}0]}`,
      `{"output":[${'0,'.repeat(2000)}0]}`,
      `[${'[0],'.repeat(1000)}[0]]`,
      '{"a":',
      '',
    ];
    const out = [];
    for (const b of bodies) {
      const bytes = Buffer.from(b);
      const want = decodeJsonBody(bytes, limits);
      expect(await p.parseJson(bytes, limits)).toEqual(want);
      expect(await inThreadParser.parseJson(bytes, limits)).toEqual(want);
      out.push(want.ok ? 'ok' : want.error);
    }
    expect(out).toEqual(['ok', 'ok', 'too-deep', 'too-large', 'too-large', 'too-large', 'syntax', 'syntax']);
    expect(decodeJsonBody(Buffer.from(bodies[1]!), limits)).toEqual({
      ok: true,
      data: { a: [1, { b: 'é' }] },
    });
  });

  it('parses an 8 MB JSON body off the event loop', async () => {
    const p = open(30_000);
    await p.detect('warm-up');
    // Two million tiny arrays: hundreds of ms to scan and parse, which the event loop must not see.
    const bytes = Buffer.from(`{"output":"x","junk":[${'[0],'.repeat(2 * 1024 * 1024 - 1)}[0]]}`);
    const work = p.parseJson(bytes, { maxDepth: 64, bulkKey: 'output', maxOtherBytes: 1024 * 1024 });
    const lag = await maxLag(work);
    expect((await work).ok).toBe(false);
    expect(lag).toBeLessThan(200);
  });
});
