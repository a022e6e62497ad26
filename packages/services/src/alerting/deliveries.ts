/** The delivery log: every notification to a channel is a row, sent with retries and exponential backoff. */
import {
  claimDelivery,
  createDelivery,
  createSharedLimiter,
  getChannel,
  getOrgById,
  listDueDeliveries,
  listRoutes,
  updateDelivery,
  type TChannelRow,
  type TDeliveryRow,
} from '@clusterscope/db';
import type { TDelivery } from '@clusterscope/schema';
import type { TDeps } from '../core/deps';
import { assertCan, type TCaller } from '../tenancy/caller';
import { AppError } from '../core/errors';
import { loadAlertChannel, toDelivery } from './api';
import { sendToChannel, toFixedReason, type TNotification } from './channels';
import { logOf } from '../core/logger';

export const MAX_ATTEMPTS = 6;
/** 10 s, 20 s, 40 s, … capped at 10 min. */
export const backoffMs = (attempts: number) => Math.min(10_000 * 2 ** Math.max(0, attempts - 1), 600_000);

/** How long one attempt holds its claim (longer than a channel's timeout). */
const CLAIM_MS = 60_000;

/** One attempt; the row records the outcome (sent, or pending with the next attempt, or failed). */
export async function attemptDelivery(deps: TDeps, d: TDeliveryRow, channel: TChannelRow, now = new Date()) {
  const attempts = d.attempts + 1;
  try {
    const note = await sendToChannel(deps, channel, d.payload as unknown as TNotification);
    return updateDelivery(deps.db, d.id, { status: 'sent', attempts, lastError: note, sentAt: new Date() });
  } catch (err) {
    const msg = toFixedReason((err as Error).message || String(err));
    const failed = attempts >= MAX_ATTEMPTS;
    return updateDelivery(deps.db, d.id, {
      status: failed ? 'failed' : 'pending',
      attempts,
      lastError: msg,
      nextAttemptAt: new Date(now.getTime() + backoffMs(attempts)),
    });
  }
}

/**
 * Sends every due delivery (called by the leader each cycle, and right after new ones are queued). Each is
 * claimed first, so senders racing each other (leader, a benchmark alert, "Send test") send it once.
 */
export async function deliverDue(deps: TDeps, now = new Date()): Promise<number> {
  const due = await listDueDeliveries(deps.db, now);
  const until = new Date(now.getTime() + CLAIM_MS);
  const sent = await Promise.all(
    due.map(async (d) => {
      if (!(await claimDelivery(deps.db, d, now, until))) return false;
      if (d.channel.enabled) await attemptDelivery(deps, d, d.channel, now);
      else
        await updateDelivery(deps.db, d.id, {
          status: 'failed',
          attempts: d.attempts,
          lastError: 'channel disabled',
        });
      return true;
    }),
  );
  return sent.filter(Boolean).length;
}

export async function queueDelivery(
  deps: TDeps,
  channel: { id: string; organizationId: string },
  kind: TDelivery['kind'],
  n: TNotification,
  groupId: string | null = null,
  nextAttemptAt?: Date,
) {
  return createDelivery(deps.db, {
    organizationId: channel.organizationId,
    channelId: channel.id,
    groupId,
    kind,
    title: n.title,
    payload: n as unknown as object,
    nextAttemptAt,
  });
}

/**
 * "Send test" limits: a few per channel and per person a minute, enough to check a channel while editing it,
 * too few to turn the server into a request cannon. Counted in PostgreSQL, so several web instances share
 * one count.
 */
export const TEST_SENDS = { perChannel: 5, perCaller: 20, windowS: 60 } as const;

async function takeTestSend(deps: TDeps, limit: 'channel' | 'caller', key: string, what: string) {
  const points = limit === 'channel' ? TEST_SENDS.perChannel : TEST_SENDS.perCaller;
  const limiter = createSharedLimiter(deps.db, {
    name: `test-send-${limit}`,
    points,
    windowS: TEST_SENDS.windowS,
  });
  const waitMs = await limiter.take(key);
  if (waitMs === null) return;
  const retryAfterS = Math.max(1, Math.ceil(waitMs / 1000));
  throw new AppError('TOO_MANY_REQUESTS', `${what}; retry after ${retryAfterS} s`, { retryAfterS });
}

/** "Send test": queues and sends one test notification now; the delivery row shows the outcome. */
export async function sendTestNotification(deps: TDeps, caller: TCaller, channelId: string) {
  assertCan(caller, { alert: ['configure'] });
  const channel = await loadAlertChannel(deps, caller, channelId);
  const who = caller.kind === 'user' ? `user:${caller.userId}` : `token:${caller.tokenId}`;
  await takeTestSend(
    deps,
    'caller',
    who,
    `at most ${TEST_SENDS.perCaller} test notifications a minute per person`,
  );
  await takeTestSend(
    deps,
    'channel',
    channel.id,
    `at most ${TEST_SENDS.perChannel} test notifications a minute per channel`,
  );
  const origin = deps.origin ?? 'http://127.0.0.1:3000';
  const now = new Date().toISOString();
  const n: TNotification = {
    status: 'test',
    title: `Test notification from Clusterscope (${channel.name})`,
    org: caller.orgSlug,
    orgId: caller.orgId,
    clusterId: null,
    clusterName: null,
    url: `${origin}/${caller.orgSlug}/alerts`,
    groupKey: `test:${channel.id}`,
    alerts: [
      {
        id: 'test',
        status: 'firing',
        severity: 'info',
        rule: 'Test',
        ruleId: 'test',
        summary: 'This is a test: the channel works.',
        labels: {},
        value: null,
        startsAt: now,
        endsAt: null,
        runbookUrl: '',
        acked: false,
      },
    ],
  };
  // Claimed at birth: sent here, not by the leader's pass, unless this process dies mid-attempt.
  const d = await queueDelivery(deps, channel, 'test', n, null, new Date(Date.now() + CLAIM_MS));
  return toDelivery(await attemptDelivery(deps, d, channel));
}

/**
 * Routes a benchmark threshold alert like a warning: to the org's warning channels (no grouping; one
 * delivery per channel). Never throws (a finished run must not fail on notification trouble).
 */
export async function notifyBenchmarkAlert(
  deps: TDeps,
  orgId: string,
  a: { id: string; runId: string; clusterId: string | null; metric: string; message: string; value: number },
) {
  try {
    const org = { id: orgId, slug: (await getOrgById(deps.db, orgId))?.slug ?? '' };
    const routes = await listRoutes(deps.db, org.id);
    const route =
      routes.find((r) => r.severity === 'warning' && r.clusterId === a.clusterId && a.clusterId) ??
      routes.find((r) => r.severity === 'warning' && r.clusterId === null);
    if (!route) return 0;
    const origin = deps.origin ?? 'http://127.0.0.1:3000';
    const n: TNotification = {
      status: 'benchmark',
      title: `Benchmark regression: ${a.metric}`,
      org: org.slug,
      orgId: org.id,
      clusterId: a.clusterId,
      clusterName: null,
      url: `${origin}/${org.slug}/runs/${a.runId}`,
      groupKey: `benchmark:${a.id}`,
      alerts: [
        {
          id: a.id,
          status: 'firing',
          severity: 'warning',
          rule: 'Benchmark threshold',
          ruleId: 'benchmark',
          summary: a.message,
          labels: { metric: a.metric, run: a.runId },
          value: a.value,
          startsAt: new Date().toISOString(),
          endsAt: null,
          runbookUrl: '',
          acked: false,
        },
      ],
    };
    let queued = 0;
    for (const id of route.channelIds) {
      const ch = await getChannel(deps.db, org.id, id);
      if (!ch?.enabled) continue;
      await queueDelivery(deps, ch, 'benchmark', n);
      queued++;
    }
    if (queued) await deliverDue(deps);
    return queued;
  } catch (err) {
    logOf(deps).warn({ err: String(err) }, 'benchmark alert notification failed');
    return 0;
  }
}
