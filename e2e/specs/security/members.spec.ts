import { expect, test, type Browser } from '@playwright/test';
import { createTokenVia, signInPatiently } from '../../fixtures/auth';

const PW = 'a-strong-passphrase';

async function newUser(browser: Browser, email: string, invite?: string) {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await page.goto(invite ? `/signup?invite=${invite}` : '/signup');
  await page.getByLabel('Name').fill(email.split('@')[0]);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PW);
  if (!invite) await page.getByLabel('Organization').fill(`Org ${email.split('@')[0]}`);
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(page).not.toHaveURL(/\/signup/, { timeout: 20_000 });
  return page;
}

test('members join only by accepting an invitation signed in with the invited email', async ({
  page,
  browser,
}) => {
  test.setTimeout(180_000); // four scrypt sign-ups/sign-ins on a busy 2-core machine
  const stamp = Date.now();
  const alice = `alice-${stamp}@example.com`;
  await signInPatiently(page);
  await page.goto('/demo/settings/members');
  await expect(page.getByLabel('Email of an existing user')).toHaveCount(0);
  await page.getByLabel('Invite by email').fill(alice);
  await page.getByLabel('Invitation role').selectOption('admin');
  await page.getByRole('button', { name: 'Invite' }).click();
  const link = (await page.getByTestId('invite-link').textContent())!.trim();
  const id = link.split('/invite/')[1];
  expect(id).toBeTruthy();
  await expect(page.getByRole('row', { name: new RegExp(alice) })).toBeVisible();

  // A stranger with another email (who signed up first) cannot see or accept it.
  const mallory = await newUser(browser, `mallory-${stamp}@example.com`);
  expect((await mallory.goto(`/invite/${id}`))?.status()).toBe(404);
  const forged = await mallory.request.post(`/api/trpc/orgs.acceptInvitation`, {
    headers: { origin: new URL(mallory.url()).origin },
    data: { id },
  });
  expect(forged.status()).toBe(404);
  expect((await mallory.goto('/demo/clusters'))?.status()).toBe(404);

  // Alice signs up through the link and accepts.
  const a = await newUser(browser, alice, id);
  await expect(a).toHaveURL(new RegExp(`/invite/${id}$`));
  await expect(a.getByRole('heading', { name: /Join/ })).toBeVisible();
  await a.getByRole('button', { name: 'Accept' }).click();
  await expect(a).toHaveURL(/\/demo\/clusters$/, { timeout: 20_000 });

  // Alice is an admin now: she cannot demote or remove the owner, nor grant owner.
  await a.goto('/demo/settings/members');
  const ownerRow = a.getByRole('row', { name: /owner/ }).first();
  await expect(ownerRow.getByRole('combobox')).toHaveCount(0);
  const members = (await (
    await a.request.get('/api/trpc/orgs.members', { headers: { 'x-org': 'demo' } })
  ).json()) as { result: { data: { id: string; role: string; user: { email: string } }[] } };
  const owner = members.result.data.find((m) => m.role === 'owner')!;
  const me = members.result.data.find((m) => m.user.email === alice)!;
  const post = (path: string, data: unknown) =>
    a.request.post(`/api/trpc/${path}`, {
      headers: { 'x-org': 'demo', origin: new URL(a.url()).origin },
      data,
    });
  expect((await post('orgs.setRole', { memberId: owner.id, role: 'viewer' })).status()).toBe(403);
  expect((await post('orgs.removeMember', { memberId: owner.id })).status()).toBe(403);
  expect((await post('orgs.setRole', { memberId: me.id, role: 'owner' })).status()).toBe(403);
  // The owner is still the owner.
  await page.reload();
  await expect(page.getByRole('row', { name: new RegExp(alice) })).toBeVisible();
  await a.context().close();
  await mallory.context().close();
});

test('member emails are for sessions and admin tokens; ingest/read/runs:write tokens get 403', async ({
  page,
  request,
}) => {
  await signInPatiently(page);
  for (const scope of ['ingest', 'read', 'runs:write']) {
    const token = await createTokenVia(page.request, 'demo', { name: `m-${scope}`, scopes: [scope] });
    const res = await request.get('/api/trpc/orgs.members', {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status(), scope).toBe(403);
    expect(await res.text()).not.toContain('@');
  }
  const admin = await createTokenVia(page.request, 'demo', { name: 'm-admin', scopes: ['admin'] });
  const ok = await request.get('/api/trpc/orgs.members', { headers: { authorization: `Bearer ${admin}` } });
  expect(ok.status()).toBe(200);
  // Admin automation never manages members.
  const invite = await request.post('/api/trpc/orgs.invite', {
    headers: { authorization: `Bearer ${admin}` },
    data: { email: 'bot-invite@example.com', role: 'owner' },
  });
  expect(invite.status()).toBe(403);
});
