import { z } from 'zod';
import {
  ackAlertInstances,
  createAlertRule,
  createChannel,
  createSilence,
  previewSilence,
  previewAlertRule,
  updateAlertRule,
  updateChannel,
  expireSilence,
  listAlertInstances,
  listAlertRules,
  listChannels,
  listSilences,
  getAlertDetail,
  getAlertSeries,
  getAlertRule,
  getChannel,
  getRouting,
  getVapidPublicKey,
  deleteAlertRule,
  deleteChannel,
  sendTestNotification,
  setRouting,
  subscribePush,
  unsubscribePush,
} from '@clusterscope/services/alerting';
import {
  ZAlertDetail,
  ZAlertSeriesView,
  ZAlertingId,
  ZAlertInstance,
  ZAlertListInput,
  ZAlertRule,
  ZAlertRuleCreate,
  ZAlertRulePreview,
  ZAlertRulePreviewInput,
  ZAlertRuleUpdate,
  ZChannel,
  ZChannelCreateBody,
  ZChannelUpdate,
  ZDeleted,
  ZDelivery,
  ZPushSubscribe,
  ZRouting,
  ZRoutingSet,
  ZRuleListInput,
  ZSilence,
  ZSilenceCreate,
  ZSilencePreview,
} from '@clusterscope/schema';
import { orgProcedure, router, svc } from '../trpc';
import { restMeta } from '../rest';

const rest = restMeta(['alerting']);
const ZId = ZAlertingId;
/** A procedure on one rule, alert, silence or channel. */
const byId = orgProcedure.input(z.object({ id: ZId }));

/** On-call alerting (issue 12): viewers read; members ack and silence; admins edit rules, channels, routing. */
export const alertingRouter = router({
  // ---- rules (REST CRUD) ----
  rules: orgProcedure
    .meta(rest('GET', '/alerting/rules', 'List alert rules'))
    .input(ZRuleListInput)
    .output(z.array(ZAlertRule))
    .query(svc(listAlertRules)),
  rule: byId
    .meta(rest('GET', '/alerting/rules/{id}', 'Get an alert rule'))
    .output(ZAlertRule)
    .query(svc(getAlertRule, 'id')),
  createRule: orgProcedure
    .meta(
      rest(
        'POST',
        '/alerting/rules',
        'Create a custom alert rule',
        'series: one of the catalogue (node.*, cgroup.*, agent.*); aggregation node = one alert per node/cgroup/agent, else one per cluster. forS = pending time, keepFiringForS = hysteresis.',
      ),
    )
    .input(ZAlertRuleCreate)
    .output(ZAlertRule)
    .mutation(svc(createAlertRule)),
  previewRule: orgProcedure
    .meta(
      rest(
        'POST',
        '/alerting/rules/preview',
        'What a rule would do now, before it is saved',
        "Same condition fields as creating a rule; answers each subject's current value and whether the rule would fire on it.",
      ),
    )
    .input(ZAlertRulePreviewInput)
    .output(ZAlertRulePreview)
    .mutation(svc(previewAlertRule)),
  updateRule: orgProcedure
    .meta(rest('PATCH', '/alerting/rules/{id}', 'Edit an alert rule'))
    .input(ZAlertRuleUpdate)
    .output(ZAlertRule)
    .mutation(svc(updateAlertRule)),
  deleteRule: byId
    .meta(rest('DELETE', '/alerting/rules/{id}', 'Delete a custom alert rule (built-in rules: disable them)'))
    .output(ZDeleted)
    .mutation(svc(deleteAlertRule, 'id')),

  // ---- alerts ----
  list: orgProcedure
    .meta(
      rest(
        'GET',
        '/alerting/alerts',
        'List alerts (firing first, worst first)',
        'state and severity: comma-separated; from/to: epoch ms.',
      ),
    )
    .input(ZAlertListInput)
    .output(z.array(ZAlertInstance))
    .query(svc(listAlertInstances)),
  get: byId
    .meta(rest('GET', '/alerting/alerts/{id}', 'An alert and its history'))
    .output(ZAlertDetail)
    .query(svc(getAlertDetail, 'id')),
  series: byId
    .meta(
      rest(
        'GET',
        '/alerting/alerts/{id}/series',
        "An alert's series around its active window, with its threshold",
      ),
    )
    .output(ZAlertSeriesView)
    .query(svc(getAlertSeries, 'id')),
  ack: orgProcedure
    .meta(rest('POST', '/alerting/ack', 'Acknowledge alerts (stops repeat notifications and escalation)'))
    .input(z.object({ ids: z.array(ZId).min(1).max(100) }))
    .output(z.array(ZAlertInstance))
    .mutation(svc(ackAlertInstances, 'ids')),

  // ---- silences ----
  silences: orgProcedure
    .meta(rest('GET', '/alerting/silences', 'List silences'))
    .input(z.object({}))
    .output(z.array(ZSilence))
    .query(svc(listSilences)),
  createSilence: orgProcedure
    .meta(rest('POST', '/alerting/silences', 'Create a silence'))
    .input(ZSilenceCreate)
    .output(ZSilence)
    .mutation(svc(createSilence)),
  previewSilence: orgProcedure
    .meta(
      rest(
        'POST',
        '/alerting/silences/preview',
        'The alerts a silence would mute now',
        'Same matchers as creating a silence (at least one); answers the pending and firing alerts they match.',
      ),
    )
    .input(ZSilencePreview)
    .output(z.array(ZAlertInstance))
    .mutation(svc(previewSilence)),
  expireSilence: byId
    .meta(rest('POST', '/alerting/silences/{id}/expire', 'End a silence now'))
    .output(ZSilence)
    .mutation(svc(expireSilence, 'id')),

  // ---- channels (REST CRUD; secrets are write-only: answered as ***) ----
  channels: orgProcedure
    .meta(rest('GET', '/alerting/channels', 'List notification channels (secrets shown as ***)'))
    .input(z.object({}).optional())
    .output(z.array(ZChannel))
    .query(svc(listChannels)),
  channel: byId
    .meta(rest('GET', '/alerting/channels/{id}', 'Get a notification channel (secrets shown as ***)'))
    .output(ZChannel)
    .query(svc(getChannel, 'id')),
  createChannel: orgProcedure
    .meta(
      rest(
        'POST',
        '/alerting/channels',
        'Create a notification channel',
        'kind webhook|slack|email|push|ntfy with its config (stored in clear) and secret (write-only: never returned, answered as ***).',
      ),
    )
    .input(ZChannelCreateBody)
    .output(ZChannel)
    .mutation(svc(createChannel)),
  updateChannel: orgProcedure
    .meta(
      rest(
        'PATCH',
        '/alerting/channels/{id}',
        'Edit a notification channel',
        'name/enabled alone, or kind (unchanged) + config + secret; a secret field sent as *** keeps the stored value.',
      ),
    )
    .input(ZChannelUpdate)
    .output(ZChannel)
    .mutation(svc(updateChannel)),
  deleteChannel: byId
    .meta(rest('DELETE', '/alerting/channels/{id}', 'Delete a notification channel'))
    .output(ZDeleted)
    .mutation(svc(deleteChannel, 'id')),
  testChannel: byId
    .meta(rest('POST', '/alerting/channels/{id}/test', 'Send a test notification through a channel'))
    .output(ZDelivery)
    .mutation(svc(sendTestNotification, 'id')),

  // ---- routing (REST: read and replace) ----
  routing: orgProcedure
    .meta(
      rest(
        'GET',
        '/alerting/routing',
        'Routing: channels per severity',
        "No clusterId = the org defaults; a clusterId = that cluster's overrides.",
      ),
    )
    .input(z.object({ clusterId: ZId.nullable().default(null) }))
    .output(ZRouting)
    .query(svc(getRouting, 'clusterId')),
  setRouting: orgProcedure
    .meta(
      rest(
        'PUT',
        '/alerting/routing',
        'Replace the routes (of the org, or of one cluster with clusterId)',
        'One route per severity; grouping applies org-wide only.',
      ),
    )
    .input(ZRoutingSet)
    .output(ZRouting)
    .mutation(svc(setRouting)),

  // ---- web push ----
  vapidPublicKey: orgProcedure
    .input(z.object({}).optional())
    .output(z.object({ publicKey: z.string().nullable() }))
    .query(svc(getVapidPublicKey)),
  subscribePush: orgProcedure
    .input(ZPushSubscribe)
    .output(z.object({ id: z.string(), endpoint: z.string() }))
    .mutation(svc(subscribePush)),
  unsubscribePush: orgProcedure
    .input(z.object({ endpoint: z.string().min(1).max(2048) }))
    .output(z.object({ removed: z.boolean() }))
    .mutation(svc(unsubscribePush, 'endpoint')),
});
