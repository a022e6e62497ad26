/** Notification channels: turn one notification into a webhook, Slack, email, ntfy or Web Push message. */
import { createHmac } from 'node:crypto';
import webpush from 'web-push';
import { deletePushSubscriptionByEndpoint, listPushSubscriptions, type TChannelRow } from '@clusterscope/db';
import type { TPushPayload, TWebhookPayload } from '@clusterscope/schema';
import type { TDeps } from '../deps';
import { openChannelSecret } from './api';

export interface TNotifiedAlert {
  id: string;
  status: 'firing' | 'resolved';
  severity: string;
  rule: string;
  ruleId: string;
  summary: string;
  labels: Record<string, string>;
  value: number | null;
  startsAt: string;
  endsAt: string | null;
  runbookUrl: string;
  acked: boolean;
}

/** What a delivery carries (stored as its payload); each channel formats it. */
export interface TNotification {
  status: 'firing' | 'resolved' | 'test' | 'benchmark';
  title: string;
  org: string;
  orgId: string;
  clusterId: string | null;
  clusterName: string | null;
  /** Absolute link to the cluster (or alerts) page. */
  url: string;
  groupKey: string;
  alerts: TNotifiedAlert[];
}

const TIMEOUT_MS = 10_000;
const ZERO_TIME = '0001-01-01T00:00:00Z';

/** `sha256=<hex>` HMAC-SHA256 of the exact body bytes with the channel's secret. */
export const signBody = (secret: string, body: string) =>
  `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;

/** Alertmanager webhook (version 4) shape, so existing receivers work. */
export function toWebhookPayload(n: TNotification, receiver: string, origin: string): TWebhookPayload {
  const labelsOf = (a: TNotifiedAlert): Record<string, string> => ({
    alertname: a.rule,
    severity: a.severity,
    ...(n.clusterName ? { cluster: n.clusterName } : {}),
    ...a.labels,
  });
  const all = n.alerts.map(labelsOf);
  const common = all.length
    ? Object.fromEntries(Object.entries(all[0]!).filter(([k, v]) => all.every((l) => l[k] === v)))
    : {};
  return {
    version: '4',
    groupKey: n.groupKey,
    truncatedAlerts: 0,
    status: n.status === 'resolved' ? 'resolved' : 'firing',
    receiver,
    groupLabels: n.clusterName ? { cluster: n.clusterName } : {},
    commonLabels: common,
    commonAnnotations: {},
    externalURL: origin,
    alerts: n.alerts.map((a) => ({
      status: a.status,
      labels: labelsOf(a),
      annotations: {
        summary: a.summary,
        ...(a.runbookUrl ? { runbook_url: a.runbookUrl } : {}),
        ...(a.value !== null ? { value: String(a.value) } : {}),
      },
      startsAt: a.startsAt,
      endsAt: a.endsAt ?? ZERO_TIME,
      generatorURL: `${origin}/${n.org}/alerts/${a.id}`,
      fingerprint: a.id,
    })),
    title: n.title,
    org: n.org,
  };
}

/** Plain text body shared by Slack, email and ntfy. */
export function toText(n: TNotification): string {
  const lines = n.alerts.map(
    (a) =>
      `${a.status === 'resolved' ? 'RESOLVED' : a.severity.toUpperCase()}${a.acked ? ' (acked)' : ''}: ${a.summary || a.rule}${a.runbookUrl ? ` — runbook: ${a.runbookUrl}` : ''}`,
  );
  return [n.title, ...lines].join('\n');
}

async function post(url: string, body: string, headers: Record<string, string>): Promise<void> {
  const res = await fetch(url, {
    method: 'POST',
    body,
    headers,
    redirect: 'error',
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  if (!res.ok) {
    const text = (await res.text().catch(() => '')).slice(0, 200);
    throw new Error(`HTTP ${res.status}${text ? `: ${text}` : ''}`);
  }
  await res.arrayBuffer().catch(() => undefined);
}

const slackEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Sends one notification through one channel; throws on failure (the dispatcher retries). */
export async function sendToChannel(
  deps: TDeps,
  channel: TChannelRow,
  n: TNotification,
): Promise<string | null> {
  const origin = deps.origin ?? 'http://127.0.0.1:3000';
  const config = (channel.config ?? {}) as Record<string, unknown>;
  const secret = openChannelSecret(deps, channel);
  switch (channel.kind) {
    case 'webhook': {
      const body = JSON.stringify(toWebhookPayload(n, channel.name, origin));
      await post(String(config.url), body, {
        'content-type': 'application/json',
        'x-clusterscope-signature': signBody(secret.hmacSecret ?? '', body),
      });
      return null;
    }
    case 'slack': {
      const lines = toText(n).split('\n').map(slackEscape);
      const text = [`*${lines[0]}* — <${n.url}|open in Clusterscope>`, ...lines.slice(1)].join('\n');
      await post(secret.url ?? '', JSON.stringify({ text }), { 'content-type': 'application/json' });
      return null;
    }
    case 'email': {
      if (!deps.mail) throw new Error('SMTP_URL is not set on the server');
      const to = (config.to as string[] | undefined) ?? [];
      await deps.mail.send({ to: to.join(', '), subject: n.title, text: `${toText(n)}\n\n${n.url}\n` });
      return null;
    }
    case 'ntfy': {
      const top = n.alerts.find((a) => a.status === 'firing')?.severity;
      const headers: Record<string, string> = {
        'content-type': 'text/plain; charset=utf-8',
        // Header values must be ISO-8859-1: keep the title ASCII.
        title: n.title.replace(/[^\x20-\x7e]/g, '?'),
        priority: n.status === 'resolved' ? '3' : top === 'critical' ? '5' : top === 'warning' ? '4' : '3',
        tags: n.status === 'resolved' ? 'white_check_mark' : 'rotating_light',
        click: n.url,
      };
      if (secret.token) headers.authorization = `Bearer ${secret.token}`;
      await post(String(config.url), toText(n), headers);
      return null;
    }
    case 'push':
      return sendPush(deps, channel, n);
    default:
      throw new Error(`unknown channel kind '${channel.kind}'`);
  }
}

/** The JSON a push message carries (the service worker shows it and can ack with the session cookie). */
export function toPushPayload(n: TNotification): TPushPayload {
  const lines = n.alerts.map((a) => a.summary || a.rule);
  return {
    title: n.title,
    body: lines.slice(0, 4).join('\n') + (lines.length > 4 ? `\n+${lines.length - 4} more` : ''),
    url: n.url,
    alertIds: n.alerts.filter((a) => a.status === 'firing').map((a) => a.id),
    ackUrl: '/api/v1/alerting/ack',
    org: n.org,
    tag: n.groupKey,
    status: n.status === 'resolved' ? 'resolved' : n.status === 'test' ? 'test' : 'firing',
  };
}

async function sendPush(deps: TDeps, channel: TChannelRow, n: TNotification): Promise<string | null> {
  if (!deps.vapid) throw new Error('Web Push is not configured (VAPID keys)');
  const userIds = ((channel.config ?? {}) as { userIds?: string[] }).userIds ?? [];
  const subs = await listPushSubscriptions(deps.db, channel.organizationId, userIds);
  if (subs.length === 0) return 'no push subscriptions';
  const body = JSON.stringify(toPushPayload(n));
  let ok = 0;
  const errors: string[] = [];
  for (const s of subs) {
    try {
      await webpush.sendNotification(
        { endpoint: s.endpoint, keys: { p256dh: s.p256dh, auth: s.auth } },
        body,
        {
          vapidDetails: deps.vapid,
          TTL: 3600,
          urgency: n.status === 'firing' ? 'high' : 'normal',
          timeout: TIMEOUT_MS,
        },
      );
      ok++;
    } catch (err) {
      const status = (err as { statusCode?: number }).statusCode;
      // Gone: the browser dropped the subscription.
      if (status === 404 || status === 410) await deletePushSubscriptionByEndpoint(deps.db, s.endpoint);
      else errors.push(status ? `HTTP ${status}` : (err as Error).message);
    }
  }
  if (ok === 0 && errors.length) throw new Error(`push failed: ${errors.slice(0, 3).join('; ')}`);
  return errors.length ? `${errors.length} of ${subs.length} subscriptions failed` : null;
}

/** VAPID keys: from the environment, else the ones generated once (see apps/web lib/server/alerting.ts). */
export const generateVapidKeys = () => webpush.generateVAPIDKeys();
