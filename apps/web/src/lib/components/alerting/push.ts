import { dev } from '$app/environment';
import { mutate, query } from './rpc';

/** The service worker SvelteKit builds from src/service-worker.ts (served at the site root). */
export const SW_URL = '/service-worker.js';

export type TPushState = 'unsupported' | 'denied' | 'off' | 'on' | 'no-server-key';

export const pushSupported = () =>
  typeof window !== 'undefined' &&
  'serviceWorker' in navigator &&
  'PushManager' in window &&
  'Notification' in window;

/** base64url → bytes, for the VAPID application server key. */
export function base64UrlToBytes(s: string): Uint8Array<ArrayBuffer> {
  const b64 = s.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (s.length % 4)) % 4);
  const bin = atob(b64);
  const out = new Uint8Array(new ArrayBuffer(bin.length));
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

async function registration(): Promise<ServiceWorkerRegistration> {
  const existing = await navigator.serviceWorker.getRegistration('/');
  if (existing) return existing;
  await navigator.serviceWorker.register(SW_URL, { scope: '/', type: dev ? 'module' : 'classic' });
  return navigator.serviceWorker.ready;
}

/** Current state without prompting: is this browser subscribed for this org's alerts? */
export async function getPushState(): Promise<TPushState> {
  if (!pushSupported()) return 'unsupported';
  if (Notification.permission === 'denied') return 'denied';
  const reg = await navigator.serviceWorker.getRegistration('/');
  const sub = await reg?.pushManager.getSubscription();
  return sub && Notification.permission === 'granted' ? 'on' : 'off';
}

/**
 * Asks for notification permission (must run from a click), registers the service worker, subscribes with
 * the server's VAPID key and stores the subscription for the signed-in user.
 */
export async function enablePush(org: string): Promise<TPushState> {
  if (!pushSupported()) return 'unsupported';
  const permission = await Notification.requestPermission();
  if (permission !== 'granted') return permission === 'denied' ? 'denied' : 'off';
  const { publicKey } = await query<{ publicKey: string | null }>(org, 'alerting.vapidPublicKey');
  if (!publicKey) return 'no-server-key';
  const reg = await registration();
  let sub = await reg.pushManager.getSubscription();
  const key = base64UrlToBytes(publicKey);
  if (sub && !sameKey(sub.options.applicationServerKey, key)) {
    await sub.unsubscribe();
    sub = null;
  }
  sub ??= await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
  const json = sub.toJSON();
  await mutate(org, 'alerting.subscribePush', {
    endpoint: json.endpoint,
    keys: { p256dh: json.keys?.p256dh, auth: json.keys?.auth },
  });
  return 'on';
}

/** Unsubscribes this browser and forgets the subscription on the server. */
export async function disablePush(org: string): Promise<TPushState> {
  if (!pushSupported()) return 'unsupported';
  const reg = await navigator.serviceWorker.getRegistration('/');
  const sub = await reg?.pushManager.getSubscription();
  if (sub) {
    await mutate(org, 'alerting.unsubscribePush', { endpoint: sub.endpoint }).catch(() => undefined);
    await sub.unsubscribe();
  }
  return 'off';
}

function sameKey(a: ArrayBuffer | null | undefined, b: Uint8Array): boolean {
  if (!a) return false;
  const x = new Uint8Array(a);
  return x.length === b.length && x.every((v, i) => v === b[i]);
}
