import { defineConfig, devices } from '@playwright/test';
import { ensurePushCa } from './fixtures/push-ca';

export const PORT = Number(process.env.E2E_PORT ?? 3100);
export const BASE_URL = `http://127.0.0.1:${PORT}`;
/** Fresh per run; E2E_DATA_DIR lets parallel runs use separate directories. */
export const DATA_DIR = process.env.E2E_DATA_DIR ?? new URL('./.data/', import.meta.url).pathname;

const launchOptions = {
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
  ],
};

export default defineConfig({
  testDir: './specs',
  outputDir: './test-results',
  fullyParallel: false,
  workers: 1,
  retries: process.env.CI ? 1 : 0,
  timeout: 60_000,
  // 2-core CI: the first scrypt sign-in and cold server routes can take several seconds.
  expect: { timeout: 15_000 },
  reporter: [['list'], ['html', { open: 'never', outputFolder: './playwright-report' }]],
  use: { baseURL: BASE_URL, trace: 'retain-on-failure', screenshot: 'only-on-failure' },
  projects: [
    { name: 'api', testMatch: /api\/.*\.spec\.ts/, use: { launchOptions } },
    { name: 'security', testMatch: /security\/.*\.spec\.ts/, use: { launchOptions } },
    // Fault injection against its own app instance (kill -9 of the web server); ~2 min.
    { name: 'fault', testMatch: /fault\/.*\.spec\.ts/, use: { launchOptions } },
    {
      name: 'desktop',
      testMatch: /ui\/.*\.spec\.ts/,
      testIgnore: /\.mobile\.spec\.ts$/,
      use: { ...devices['Desktop Chrome'], launchOptions },
    },
    {
      name: 'mobile',
      testMatch: /ui\/.*\.(mobile|both)\.spec\.ts/,
      use: { ...devices['Pixel 7'], launchOptions },
    },
  ],
  webServer: {
    // Fresh embedded databases per run; the launcher seeds the demo org and writes the admin login to DATA_DIR.
    command: `rm -rf "${DATA_DIR}" && cd ../apps/web && node --import tsx scripts/launch.ts`,
    url: `http://127.0.0.1:${PORT}/api/health`,
    // Alert rules are evaluated every 2 s here (15 s by default) so alerting specs see firing alerts quickly.
    // NODE_EXTRA_CA_CERTS: the server's web-push sender trusts the push-service stand-in of alerting-push.spec.
    env: {
      PORT: String(PORT),
      DATA_DIR,
      DEMO: process.env.E2E_DEMO ?? '1',
      ALERT_EVAL_INTERVAL_S: '2',
      NODE_EXTRA_CA_CERTS: ensurePushCa(PORT).cert,
      // The specs' webhook, ntfy, SMTP and push stand-ins listen on loopback (security/ssrf.spec starts an
      // instance without this and checks nothing reaches them).
      OUTBOUND_ALLOW: '127.0.0.1/32,::1/128',
    },
    timeout: 180_000,
    reuseExistingServer: false,
    stdout: 'pipe',
    stderr: 'pipe',
  },
});
