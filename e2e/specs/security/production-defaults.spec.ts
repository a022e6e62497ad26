import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { freePort, launch, waitHealthy } from '../../fixtures/launch';

/**
 * `NODE_ENV=production` means production defaults even with the embedded databases: sign-up is not open,
 * only ORIGIN is a trusted origin (no http://localhost:*), and no demo organization or admin is seeded.
 */
test('NODE_ENV=production with embedded databases: no open sign-up, no localhost origins, no demo', async () => {
  test.setTimeout(300_000);
  const port = await freePort();
  const app = await waitHealthy(launch({ NODE_ENV: 'production', DEMO: '' }, { port }));
  try {
    const base = `http://127.0.0.1:${port}`;
    expect(app.output()).not.toMatch(/demo organization/);
    expect(fs.existsSync(path.join(app.dataDir, 'admin-login.txt'))).toBe(false);
    const signUp = await fetch(`${base}/api/auth/sign-up/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: base },
      body: JSON.stringify({ name: 'x', email: 'walk-in@example.com', password: 'a-long-password-1' }),
    });
    expect(signUp.status).toBe(403);
    const fromLocalhost = await fetch(`${base}/api/auth/sign-in/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: `http://localhost:${port}` },
      body: JSON.stringify({ email: 'nobody@example.com', password: 'a-long-password-1' }),
    });
    expect(fromLocalhost.status).toBe(403);
    expect(await fromLocalhost.text()).toMatch(/origin/i);
    const demo = await fetch(`${base}/demo/clusters`, { redirect: 'manual' });
    expect(demo.status).not.toBe(200);
  } finally {
    app.child.kill('SIGTERM');
    await app.exited;
    fs.rmSync(app.dataDir, { recursive: true, force: true });
  }
});
