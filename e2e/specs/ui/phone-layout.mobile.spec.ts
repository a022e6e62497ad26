import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { signInPatiently } from '../../fixtures/auth';
import { makeFiringCluster, rpc } from '../../fixtures/alerting';
import { cliToken } from '../../fixtures/launch';
import { bearer, uid } from '../../fixtures/ux';

/**
 * Every page at 360 × 780 with touch (WCAG 2.2 AA 2.5.8 and a thumb): no page-level horizontal scrolling,
 * no control under 24 × 24 px, every button of the on-call and alerts pages at least 44 px tall, and no Ack
 * off-screen. The pages are the route folders of apps/web/src/routes, filled with the demo org's ids.
 */
test.use({ viewport: { width: 360, height: 780 }, hasTouch: true, isMobile: true });

const ROUTES = new URL('../../../apps/web/src/routes/', import.meta.url).pathname;

/** Route paths with a +page.svelte ("/[org]/alerts/[id]"), API and sign-out routes excluded. */
function pageRoutes(dir = ROUTES, prefix = ''): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (!statSync(p).isDirectory()) continue;
    const route = `${prefix}/${name}`;
    if (/^\/(api|logout)\b/.test(route)) continue;
    if (readdirSync(p).includes('+page.svelte')) out.push(route);
    out.push(...pageRoutes(p, route));
  }
  return out;
}

/** The first link on page `at` whose path is `list`/<one segment>: a real id of the demo org. */
async function firstIdOn(page: Page, list: string, at = list): Promise<string> {
  await page.goto(at);
  const hrefs = await page
    .locator(`a[href^="${list}/"]`)
    .evaluateAll((as) => as.map((a) => new URL((a as HTMLAnchorElement).href).pathname));
  const id = hrefs.map((h) => h.slice(list.length + 1)).find((s) => /^[^/?#]+$/.test(s) && s !== 'new');
  expect(id, `an id linked from ${list}`).toBeTruthy();
  return id!;
}

interface TProblems {
  overflow: number;
  small: string[];
  short: string[];
  offscreen: string[];
  /** The outermost elements that stick out of the screen, for the failure message. */
  wide: string[];
}

/** Measures the page as it is now. `thumb`: buttons must be 44 px tall (on-call and alerts). */
const measure = (page: Page, thumb: boolean) =>
  page.evaluate(
    ({ thumb, vw }): TProblems => {
      const name = (e: Element) =>
        `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''} "${(e.getAttribute('aria-label') ?? (e as HTMLElement).innerText ?? '').trim().slice(0, 40)}"`;
      const visible = (e: Element) => {
        const r = e.getBoundingClientRect();
        const s = getComputedStyle(e);
        return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && !e.closest('[hidden], [inert]');
      };
      const controls = Array.from(
        document.querySelectorAll(
          'button, select, textarea, summary, [role="button"], [role="tab"], [role="checkbox"], [role="switch"], input:not([type="hidden"]), a.btn, a.chip, nav[aria-label="Main"] a, nav.tabs a, nav.sub a',
        ),
      ).filter(visible);
      const small: string[] = [];
      const short: string[] = [];
      for (const e of controls) {
        const r = e.getBoundingClientRect();
        // A checkbox or radio inside its label: the label is the target.
        const label = e.matches('input[type="checkbox"], input[type="radio"]') ? e.closest('label') : null;
        const t = label ? label.getBoundingClientRect() : r;
        if (t.width < 23.5 || t.height < 23.5)
          small.push(`${name(e)} ${Math.round(t.width)}×${Math.round(t.height)}`);
        if (thumb && e.matches('button, [role="button"]') && r.height < 43.5)
          short.push(`${name(e)} ${Math.round(r.height)} px tall`);
      }
      const offscreen = Array.from(document.querySelectorAll('button'))
        .filter((b) => /^Ack\b/.test(b.innerText.trim()) && visible(b))
        .filter((b) => {
          const r = b.getBoundingClientRect();
          return r.left < 0 || r.right > vw + 0.5;
        })
        .map(name);
      const clipped = (e: Element) => {
        for (let a = e.parentElement; a && a !== document.body; a = a.parentElement)
          if (getComputedStyle(a).overflowX !== 'visible') return true;
        return false;
      };
      const out = (e: Element | null) => !!e && e.getBoundingClientRect().right > vw + 0.5;
      const wide = Array.from(document.body.querySelectorAll('*'))
        .filter((e) => out(e) && !out(e.parentElement) && visible(e) && !clipped(e))
        .slice(0, 3)
        .map(
          (e) =>
            `${name(e)}.${Array.from(e.classList).join('.')} ${Math.round(e.getBoundingClientRect().right - vw)} px`,
        );
      return { overflow: document.documentElement.scrollWidth - vw, small, short, offscreen, wide };
    },
    // The screen's width, not window.innerWidth: with isMobile, Chromium widens the layout viewport to fit a
    // page that overflows (and zooms out), so innerWidth grows with the overflow and hides it.
    { thumb, vw: page.viewportSize()!.width },
  );

test('every page fits a 360 px phone: no sideways scroll, controls ≥ 24 px, thumb-sized buttons, Ack on screen', async ({
  page,
  browser,
}) => {
  test.setTimeout(300_000);
  const routes = pageRoutes();
  expect(routes).toContain('/[org]/alerts');
  await signInPatiently(page);
  // What the lists link to: a finished run (and so a workload) and a firing alert with an Ack.
  const run = await page.request.post('/api/v1/runs', {
    headers: bearer(cliToken('runs:write', 'phone')),
    data: { cluster: 'demo-cockroach', workload: `phone-${uid()}`, tool: 'pgbench' },
  });
  expect(run.status(), await run.text()).toBe(200);
  await makeFiringCluster(page.request, 'phone', 3, [1, 2]);
  // As many clusters as a full run has made by now, so the cluster pickers are as long as in CI whatever ran before.
  for (let i = 0; i < 12; i++)
    await rpc(page.request, 'clusters.create', { name: `phone-picker-${i}-${uid()}` });

  const ids: Record<string, string> = {};
  // The simulated demo cluster always has nodes (clusters other specs made may have none).
  await page.goto('/demo/clusters');
  const demoHref = await page
    .locator('a[href^="/demo/clusters/"]', { hasText: 'demo-cockroach' })
    .first()
    .getAttribute('href');
  const cluster = demoHref?.split('/')[3] ?? (await firstIdOn(page, '/demo/clusters'));
  ids['/[org]/clusters/[id]'] = cluster;
  ids['/[org]/runs/[id]'] = await firstIdOn(page, '/demo/runs');
  // The demo's seeded workload has succeeded runs, so its page draws the history charts.
  const seeded = page.locator('a[href^="/demo/workloads/"]', { hasText: 'demo-pgbench' }).first();
  await expect
    .poll(async () => (await page.goto('/demo/workloads'), await seeded.count()), { timeout: 60_000 })
    .toBe(1);
  ids['/[org]/workloads/[id]'] = (await seeded.getAttribute('href'))!.split('/')[3];
  // Also the first workload of the list: in a full run, one that other specs made (hostile names, CI formats).
  const firstWorkload = await firstIdOn(page, '/demo/workloads');
  ids['/[org]/alerts/[id]'] = await firstIdOn(page, '/demo/alerts');
  const node = await firstIdOn(page, `/demo/clusters/${cluster}/nodes`, `/demo/clusters/${cluster}`);

  const fill = (route: string) =>
    route
      .replace('[org]', 'demo')
      .replace(/\/nodes\/\[node\]$/, `/nodes/${node}`)
      .replace(
        /^(\/demo\/\w+)\/\[id\]/,
        (_, list: string) => `${list}/${ids[`/[org]${list.slice(5)}/[id]`]}`,
      );

  const failures: string[] = [];
  const check = async (p: Page, route: string, path: string) => {
    const res = await p.goto(path);
    await p.waitForLoadState('networkidle').catch(() => undefined);
    const status = res?.status() ?? 0;
    // An unknown invitation is a 404 by design; every other page answers 2xx.
    if (status >= 400 && !route.startsWith('/invite')) failures.push(`${path}: HTTP ${status}`);
    const thumb = /^\/\[org\]\/(oncall|alerts)$/.test(route);
    const m = await measure(p, thumb);
    if (m.overflow > 0)
      failures.push(`${path}: ${m.overflow} px wider than the screen: ${m.wide.join('; ')}`);
    for (const s of m.small) failures.push(`${path}: control under 24 px: ${s}`);
    for (const s of m.short) failures.push(`${path}: button under 44 px: ${s}`);
    for (const s of m.offscreen) failures.push(`${path}: Ack off-screen: ${s}`);
  };

  await check(page, '/[org]/workloads/[id]', `/demo/workloads/${firstWorkload}`);
  const signedOut = ['/login', '/signup', '/invite'];
  for (const route of routes) {
    if (signedOut.some((r) => route.startsWith(r))) continue;
    await check(page, route, fill(route));
  }
  // The signed-out pages, in a context without the session.
  const anon = await browser.newContext({
    viewport: { width: 360, height: 780 },
    hasTouch: true,
    isMobile: true,
  });
  const p = await anon.newPage();
  for (const route of routes.filter((r) => signedOut.some((s) => r.startsWith(s))))
    await check(p, route, route.replace(/\[[^\]]+\]/g, 'no-such-invitation'));
  await anon.close();

  expect(failures).toEqual([]);
});
