import { expect, type APIRequestContext } from '@playwright/test';

/** A run's interval samples, one point per elapsed second, read back through the run page's procedure. */
export async function getRunPoints(request: APIRequestContext, headers: Record<string, string>, id: string) {
  const input = encodeURIComponent(JSON.stringify({ id }));
  const res = await request.get(`/api/trpc/compare.runDetail?input=${input}`, { headers });
  expect(res.status(), await res.text()).toBe(200);
  const series = (await res.json()).result.data.series as Record<string, [number, number][]>;
  const points = new Map<number, { elapsed_s: number; values: Record<string, number> }>();
  for (const [metric, xs] of Object.entries(series))
    for (const [elapsed_s, v] of xs) {
      const p = points.get(elapsed_s) ?? { elapsed_s, values: {} };
      p.values[metric] = v;
      points.set(elapsed_s, p);
    }
  return [...points.values()].sort((a, b) => a.elapsed_s - b.elapsed_s);
}
