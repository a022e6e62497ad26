import { expect, request as newRequest, test } from '@playwright/test';
import { PORT } from '../../playwright.config';
import { adminLogin, postAuth } from '../../fixtures/auth';

/**
 * better-auth caches the session in a signed `session_data` cookie for a minute. When it has expired the
 * server looks the session up once and hands the browser a fresh cache cookie (better-auth's SvelteKit
 * cookies plugin); without it every request after the first minute costs a Postgres lookup.
 */
test('a page request without the session cache cookie gets a fresh one', async () => {
  const base = `http://127.0.0.1:${PORT}`;
  const api = await newRequest.newContext({ baseURL: base });
  const res = await postAuth(api, '/api/auth/sign-in/email', {
    data: adminLogin(),
    headers: { origin: base },
  });
  expect(res.status()).toBe(200);
  const token = res
    .headersArray()
    .filter((h) => h.name.toLowerCase() === 'set-cookie')
    .map((h) => h.value.split(';')[0])
    .find((c) => c.startsWith('better-auth.session_token='));
  expect(token).toBeTruthy();
  await api.dispose();

  // Only the session token, as after the cache cookie expired.
  const bare = await newRequest.newContext({ baseURL: base });
  const page = await bare.get('/demo/oncall/__data.json', { headers: { cookie: token! } });
  expect(page.status()).toBe(200);
  const set = page
    .headersArray()
    .filter((h) => h.name.toLowerCase() === 'set-cookie')
    .map((h) => h.value);
  expect(set.some((c) => c.startsWith('better-auth.session_data='))).toBe(true);
  // Signed in: the data is the page's, not a redirect to /login.
  expect(await page.text()).toContain('"type":"data"');
  await bare.dispose();
});
