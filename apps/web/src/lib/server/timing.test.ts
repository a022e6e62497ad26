import { describe, expect, it } from 'vitest';
import { serverTiming, timeMethods, timed, withTimings } from './timing';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const parse = (v: string | null) =>
  Object.fromEntries(
    (v ?? '').split(', ').map((part) => {
      const [name, ...attrs] = part.split(';');
      const a = Object.fromEntries(attrs.map((x) => x.split('=') as [string, string]));
      return [name, { dur: Number(a.dur), desc: a.desc }];
    }),
  );

describe('Server-Timing', () => {
  it('counts each request’s own calls, even when requests interleave', async () => {
    const request = (pg: number, ch: number) =>
      withTimings(async () => {
        for (let i = 0; i < pg; i++) await timed('pg', () => sleep(5));
        await Promise.all(Array.from({ length: ch }, () => timed('ch', () => sleep(20))));
        return parse(serverTiming());
      });
    const [a, b] = await Promise.all([request(1, 3), request(4, 0)]);
    expect(a.pg.desc).toBe('"1 PostgreSQL queries"');
    expect(a.ch.desc).toBe('"3 ClickHouse queries"');
    expect(b.pg.desc).toBe('"4 PostgreSQL queries"');
    expect(b.ch).toEqual({ dur: 0, desc: '"0 ClickHouse queries"' });
    // Three parallel 20 ms calls: their sum is counted, the total is the wall time.
    expect(a.ch.dur).toBeGreaterThanOrEqual(55);
    expect(a.total.dur).toBeGreaterThanOrEqual(20);
    expect(a.total.dur).toBeLessThan(a.ch.dur);
  });

  it('records a call that throws, and nothing outside a request', async () => {
    await expect(timed('pg', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(serverTiming()).toBeNull();
    const t = await withTimings(async () => {
      await timed('pg', () => Promise.reject(new Error('down'))).catch(() => null);
      return parse(serverTiming());
    });
    expect(t.pg.desc).toBe('"1 PostgreSQL queries"');
  });

  it('times only the named methods of a wrapped object, which keep their `this`', async () => {
    class Client {
      calls = 0;
      async query(x: number) {
        this.calls++;
        return x * 2;
      }
      async ping() {
        this.calls++;
        return true;
      }
    }
    const raw = new Client();
    const c = timeMethods(raw, 'ch', ['query']);
    const t = await withTimings(async () => {
      expect(await c.query(21)).toBe(42);
      expect(await c.ping()).toBe(true);
      return parse(serverTiming());
    });
    expect(raw.calls).toBe(2);
    expect(c.calls).toBe(2);
    expect(t.ch.desc).toBe('"1 ClickHouse queries"');
  });
});
