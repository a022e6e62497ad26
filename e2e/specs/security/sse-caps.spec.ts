import { randomBytes } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { PORT } from '../../playwright.config';
import { signUp } from '../../fixtures/auth';

const ORIGIN = `http://127.0.0.1:${PORT}`;

test('live streams are capped per user with a clear 429; closing one frees a slot', async ({ page }) => {
  const id = randomBytes(4).toString('hex');
  const org = `sse-${id}`;
  await signUp(page, { name: 'SSE', email: `sse-${id}@e2e.test`, password: 'sse-password-12345', org });
  const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
  // Node's fetch (not the browser, which holds only 6 connections per host).
  const open = () => {
    const ctl = new AbortController();
    return fetch(`${ORIGIN}/api/live?org=${org}`, { headers: { cookie }, signal: ctl.signal }).then(
      (res) => ({
        res,
        close: () => ctl.abort(),
      }),
    );
  };
  // The signed-up page may hold one stream of its own: open until refused.
  const streams: Awaited<ReturnType<typeof open>>[] = [];
  let refused: Awaited<ReturnType<typeof open>> | undefined;
  try {
    for (let i = 0; i < 12 && !refused; i++) {
      const s = await open();
      if (s.res.status === 200) streams.push(s);
      else refused = s;
    }
    expect(streams.length).toBeGreaterThanOrEqual(9);
    expect(streams.length).toBeLessThanOrEqual(10);
    expect(refused?.res.status).toBe(429);
    expect((await refused!.res.json()).message).toMatch(
      /too many live connections for this user \(limit 10\)/,
    );
    expect(refused!.res.headers.get('retry-after')).toBeTruthy();
    streams.pop()!.close();
    await expect
      .poll(async () => {
        const s = await open();
        if (s.res.status === 200) streams.push(s);
        return s.res.status;
      })
      .toBe(200);
  } finally {
    for (const s of streams) s.close();
  }
});
