/// <reference no-default-lib="true"/>
/// <reference lib="esnext" />
/// <reference lib="webworker" />
/**
 * On-call push notifications (issue 12). Registered by the on-call page when someone enables notifications
 * (svelte.config.js turns SvelteKit's automatic registration off). It caches nothing and handles no fetches:
 * it only shows alert pushes and runs their "Acknowledge" action against the server with the session cookie,
 * without opening the app.
 */
const sw = self as unknown as ServiceWorkerGlobalScope;

/** What the server pushes (ZPushPayload in packages/schema); read defensively, it crosses a trust boundary. */
interface TPush {
  title: string;
  body: string;
  url: string;
  alertIds: string[];
  ackUrl: string;
  org: string;
  tag: string;
  status: string;
}

const str = (v: unknown, max = 2000) => (typeof v === 'string' ? v.slice(0, max) : '');
/** Only this origin's pages and endpoints: a push never sends the session cookie or the user elsewhere. */
function samePath(v: unknown): string {
  if (!str(v)) return '';
  try {
    const u = new URL(str(v), sw.location.origin);
    return u.origin === sw.location.origin && /^https?:$/.test(u.protocol) ? u.pathname + u.search : '';
  } catch {
    return '';
  }
}

function readPush(data: unknown): TPush {
  const o = (data && typeof data === 'object' ? data : {}) as Record<string, unknown>;
  return {
    title: str(o.title, 200) || 'Clusterscope alert',
    body: str(o.body, 1000),
    url: samePath(o.url) || '/',
    alertIds: Array.isArray(o.alertIds) ? o.alertIds.filter((x) => typeof x === 'string').slice(0, 100) : [],
    ackUrl: samePath(o.ackUrl),
    org: str(o.org, 100),
    tag: str(o.tag, 200),
    status: str(o.status, 20),
  };
}

function showPush(p: TPush): Promise<void> {
  const canAck = p.status === 'firing' && p.alertIds.length > 0 && !!p.ackUrl;
  return sw.registration.showNotification(p.title, {
    body: p.body,
    tag: p.tag || undefined,
    icon: '/icon-192.png',
    badge: '/icon-192.png',
    data: p,
    requireInteraction: p.status === 'firing',
    // `actions` is in the spec and Chromium; TypeScript's lib.dom lacks it.
    ...(canAck ? { actions: [{ action: 'ack', title: 'Acknowledge' }] } : {}),
  } as NotificationOptions);
}

/** POSTs the acknowledgement with the session cookie; replaces the notification with the outcome. */
async function acknowledge(n: Notification): Promise<boolean> {
  const p = readPush(n.data);
  if (!p.ackUrl || p.alertIds.length === 0) return false;
  let ok = false;
  try {
    const res = await fetch(p.ackUrl, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json', 'x-org': p.org },
      body: JSON.stringify({ ids: p.alertIds }),
    });
    ok = res.ok;
  } catch {
    ok = false;
  }
  n.close();
  if (ok) {
    await sw.registration.showNotification(`Acknowledged: ${p.title}`, {
      body: 'Repeat notifications and escalation are stopped.',
      tag: p.tag || undefined,
      icon: '/icon-192.png',
      data: { ...p, status: 'acked' },
      silent: true,
    });
  } else {
    // Signed out or offline: open the alert so it can be acknowledged there.
    await openPage(p.url);
  }
  return ok;
}

async function openPage(url: string): Promise<void> {
  const target = new URL(url, sw.location.origin).href;
  const wins = await sw.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const open = wins.find((w) => w.url === target);
  if (open) await open.focus();
  else await sw.clients.openWindow(target);
}

/** One path for a click on the notification or its action, shared by the e2e hook below. */
async function handleClick(n: Notification, action: string): Promise<boolean> {
  if (action === 'ack') return acknowledge(n);
  n.close();
  await openPage(readPush(n.data).url);
  return true;
}

sw.addEventListener('install', () => void sw.skipWaiting());
sw.addEventListener('activate', (e) => e.waitUntil(sw.clients.claim()));

sw.addEventListener('push', (e) => {
  let data: unknown = null;
  try {
    data = e.data?.json();
  } catch {
    data = { title: e.data?.text() };
  }
  e.waitUntil(showPush(readPush(data)));
});

sw.addEventListener('notificationclick', (e) => {
  e.waitUntil(handleClick(e.notification, e.action));
});

/**
 * A page of this origin may ask to run a notification's click path ({type:'notification-click', tag, action}):
 * the DevTools protocol can deliver pushes but not click notification buttons, so the e2e test goes here.
 * It does nothing a click by the same user could not do (the ack carries that user's own cookie).
 */
sw.addEventListener('message', (e) => {
  const m = (e.data ?? {}) as { type?: unknown; tag?: unknown; action?: unknown };
  if (m.type !== 'notification-click' || typeof m.tag !== 'string') return;
  e.waitUntil(
    (async () => {
      const [n] = await sw.registration.getNotifications({ tag: m.tag as string });
      const ok = n ? await handleClick(n, str(m.action, 20)) : false;
      e.source?.postMessage({ type: 'notification-click', tag: m.tag, ok });
    })(),
  );
});
