import { expect, request as newRequest, test } from '@playwright/test';
import { PORT } from '../../playwright.config';
import { adminLogin, postAuth } from '../../fixtures/auth';

const base = `http://127.0.0.1:${PORT}`;
const cookiesOf = (res: { headersArray(): { name: string; value: string }[] }) =>
  res
    .headersArray()
    .filter((h) => h.name.toLowerCase() === 'set-cookie')
    .map((h) => h.value.split(';')[0])
    .filter((c) => !c.endsWith('='))
    .join('; ');

/** Every cookie the sign-in set (session token and any cached copy) is dead once the user signs out. */
test('after sign-out, a request with the old cookies is refused at once', async () => {
  const api = await newRequest.newContext({ baseURL: base });
  const res = await postAuth(api, '/api/auth/sign-in/email', {
    data: adminLogin(),
    headers: { origin: base },
  });
  expect(res.status()).toBe(200);
  const cookie = cookiesOf(res);
  await api.dispose();

  const bare = await newRequest.newContext({ baseURL: base });
  const before = await bare.get('/demo/oncall/__data.json', { headers: { cookie } });
  expect(await before.text()).toContain('"type":"data"');

  const out = await bare.post('/logout', {
    headers: { cookie, origin: base, 'content-type': 'application/x-www-form-urlencoded' },
    data: '',
    maxRedirects: 0,
  });
  expect([200, 303]).toContain(out.status());

  const after = await bare.get('/demo/oncall/__data.json', { headers: { cookie }, maxRedirects: 0 });
  expect(await after.text()).toContain('/login');
  expect(await after.text()).not.toContain('"type":"data"');
  await bare.dispose();
});
