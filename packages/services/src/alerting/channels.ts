/** Notification channels: turn one notification into a webhook, Slack, email, ntfy or Web Push message. */
import { createHmac } from 'node:crypto';
import webpush from 'web-push';
import { deletePushSubscriptionById, listPushSubscriptions, type TChannelRow } from '@clusterscope/db';
import type { TPushPayload, TWebhookPayload } from '@clusterscope/schema';
import type { TDeps } from '../core/deps';
import { OutboundError, OUTBOUND_REASONS, outboundOf } from '../core/outbound';
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

/**
 * Slack/Mattermost mrkdwn of untrusted text (rule, cluster, node names): `&<>` as entities (no `<!here>`,
 * `<@U…>` or `<url|label>`), and the characters that start a mention or a link broken with a zero-width
 * joiner after them, so `@channel`, `@here`, `@everyone`, `[label](url)` and bare URLs stay plain text.
 */
export function escapeSlack(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/@/g, '@\u2060')
    .replace(/\[/g, '[\u2060')
    .replace(/\]\(/g, ']\u2060(')
    .replace(/:\/\//g, ':\u2060//')
    .replace(/\bwww\./gi, (m) => `${m.slice(0, 3)}\u2060.`);
}

/** A link Slack/Mattermost render as `label`: only http(s), with `|` and `>` unable to end it early. */
function slackLink(url: string, label: string): string {
  try {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return escapeSlack(url);
    return `<${u.href.replace(/\|/g, '%7C').replace(/>/g, '%3E')}|${label}>`;
  } catch {
    return escapeSlack(url);
  }
}

/** Slack/Mattermost text: names and summaries escaped; only our own links (cluster page, runbook) link. */
export function toSlackText(n: TNotification): string {
  const lines = n.alerts.map(
    (a) =>
      `${a.status === 'resolved' ? 'RESOLVED' : escapeSlack(a.severity.toUpperCase())}${a.acked ? ' (acked)' : ''}: ${escapeSlack(a.summary || a.rule)}${a.runbookUrl ? ` — ${slackLink(a.runbookUrl, 'runbook')}` : ''}`,
  );
  return [`*${escapeSlack(n.title)}* — ${slackLink(n.url, 'open in Clusterscope')}`, ...lines].join('\n');
}

const SMTP_REPLY = /^SMTP \d{3}$/;
const HTTP_STATUS = /^HTTP \d{3}$/;

/**
 * The text a delivery row may show: a status code or one of the fixed reasons, never what the remote
 * side answered (a response body or an error naming a port would leak the inside of the network).
 */
export function toFixedReason(msg: string | null): string | null {
  if (msg === null) return null;
  if (HTTP_STATUS.test(msg) || SMTP_REPLY.test(msg)) return msg;
  const http = /^HTTP (\d{3})\b/.exec(msg);
  if (http) return `HTTP ${http[1]}`;
  if (KNOWN_REASONS.has(msg) || /^\d+ of \d+ subscriptions failed$/.test(msg)) return msg;
  const push = /^push failed: (.*)$/.exec(msg)?.[1];
  if (push !== undefined && (HTTP_STATUS.test(push) || KNOWN_REASONS.has(push))) return msg;
  return 'delivery failed';
}

const REASONS = {
  noSmtp: 'SMTP_URL is not set on the server',
  noVapid: 'Web Push is not configured (VAPID keys)',
  noSubs: 'no push subscriptions',
  disabled: 'channel disabled',
  badPush: 'push endpoint refused: not https on a public address',
} as const;
const KNOWN_REASONS = new Set<string>([
  ...Object.values(OUTBOUND_REASONS),
  ...Object.values(REASONS),
  'delivery failed',
]);

/** One HTTP POST through the outbound mechanism; any failure as a fixed reason. */
async function post(deps: TDeps, url: string, body: string, headers: Record<string, string>): Promise<void> {
  await outboundOf(deps).post(url, body, headers, TIMEOUT_MS);
}

/** nodemailer's error as its SMTP reply code or a fixed reason (its message quotes the server). */
function mailReason(err: unknown): Error {
  if (err instanceof OutboundError) return err;
  const code = (err as { responseCode?: number }).responseCode;
  return new Error(typeof code === 'number' ? `SMTP ${code}` : OUTBOUND_REASONS.failed);
}

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
      await post(deps, String(config.url), body, {
        'content-type': 'application/json',
        'x-clusterscope-signature': signBody(secret.hmacSecret ?? '', body),
      });
      return null;
    }
    case 'slack': {
      const text = toSlackText(n);
      await post(deps, secret.url ?? '', JSON.stringify({ text }), { 'content-type': 'application/json' });
      return null;
    }
    case 'email': {
      if (!deps.mail) throw new Error(REASONS.noSmtp);
      const to = (config.to as string[] | undefined) ?? [];
      await deps.mail
        .send({ to: to.join(', '), subject: n.title, text: `${toText(n)}\n\n${n.url}\n` })
        .catch((err: unknown) => {
          throw mailReason(err);
        });
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
      await post(deps, String(config.url), toText(n), headers);
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
  if (!deps.vapid) throw new Error(REASONS.noVapid);
  const userIds = ((channel.config ?? {}) as { userIds?: string[] }).userIds ?? [];
  const subs = await listPushSubscriptions(deps.db, channel.organizationId, userIds);
  if (subs.length === 0) return REASONS.noSubs;
  const outbound = outboundOf(deps);
  const body = JSON.stringify(toPushPayload(n));
  let ok = 0;
  const errors: string[] = [];
  for (const s of subs) {
    try {
      await outbound.checkUrl(s.endpoint, 'endpoint', { https: true }).catch(() => {
        throw new Error(REASONS.badPush);
      });
      await webpush.sendNotification(
        { endpoint: s.endpoint, keys: { p256dh: s.p256dh, auth: s.auth } },
        body,
        {
          vapidDetails: deps.vapid,
          TTL: 3600,
          urgency: n.status === 'firing' ? 'high' : 'normal',
          timeout: TIMEOUT_MS,
          // Resolves and checks inside the connect: the address checked is the one the push goes to.
          agent: outbound.httpsAgent,
        },
      );
      ok++;
    } catch (err) {
      const status = (err as { statusCode?: number }).statusCode;
      // Gone: the browser dropped the subscription.
      if (status === 404 || status === 410) await deletePushSubscriptionById(deps.db, s.id);
      else errors.push(status ? `HTTP ${status}` : pushReason(err));
    }
  }
  if (ok === 0 && errors.length) throw new Error(`push failed: ${errors[0]}`);
  return errors.length ? `${errors.length} of ${subs.length} subscriptions failed` : null;
}

/** A push that got no HTTP answer, as one fixed reason whatever the port or TLS error. */
function pushReason(err: unknown): string {
  if (err instanceof OutboundError) return err.message;
  if ((err as Error).message === REASONS.badPush) return REASONS.badPush;
  return (err as { code?: string }).code === 'ETIMEDOUT' ? OUTBOUND_REASONS.timeout : OUTBOUND_REASONS.failed;
}

/** VAPID keys: from the environment, else the ones generated once (see apps/web lib/server/alerting.ts). */
export const generateVapidKeys = () => webpush.generateVAPIDKeys();
