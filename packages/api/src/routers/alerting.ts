import { z } from 'zod';
import {
  ackAlertInstances,
  addAlertRule,
  addChannel,
  addSilence,
  editAlertRule,
  editChannel,
  endSilence,
  findAlertInstances,
  findAlertRules,
  findChannels,
  findSilences,
  getAlertDetail,
  getAlertRuleById,
  getRouting,
  getVapidPublicKey,
  removeAlertRule,
  removeChannel,
  sendTestNotification,
  setRouting,
  subscribePush,
  unsubscribePush,
} from '@clusterscope/services';
import {
  ZAlertDetail,
  ZAlertingId,
  ZAlertInstance,
  ZAlertListInput,
  ZAlertRule,
  ZAlertRuleCreate,
  ZAlertRuleUpdate,
  ZChannel,
  ZChannelCreate,
  ZChannelUpdate,
  ZDelivery,
  ZPushSubscribe,
  ZRouting,
  ZRoutingSet,
  ZRuleListInput,
  ZSilence,
  ZSilenceCreate,
} from '@clusterscope/schema';
import { orgProcedure, router } from '../trpc';
import { restMeta } from '../rest';

const rest = restMeta(['alerting']);
const ZId = ZAlertingId;
const ZDeleted = z.object({ id: z.string(), deleted: z.boolean() });

/** On-call alerting (issue 12): viewers read; members ack and silence; admins edit rules, channels, routing. */
export const alertingRouter = router({
  // ---- rules (REST CRUD) ----
  rules: orgProcedure
    .meta(rest('GET', '/alerting/rules', 'List alert rules'))
    .input(ZRuleListInput)
    .output(z.array(ZAlertRule))
    .query(({ ctx, input }) => findAlertRules(ctx.deps, ctx.caller, input)),
  rule: orgProcedure
    .meta(rest('GET', '/alerting/rules/{id}', 'Get an alert rule'))
    .input(z.object({ id: ZId }))
    .output(ZAlertRule)
    .query(({ ctx, input }) => getAlertRuleById(ctx.deps, ctx.caller, input.id)),
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
    .mutation(({ ctx, input }) => addAlertRule(ctx.deps, ctx.caller, input)),
  updateRule: orgProcedure
    .meta(rest('PATCH', '/alerting/rules/{id}', 'Edit an alert rule'))
    .input(ZAlertRuleUpdate)
    .output(ZAlertRule)
    .mutation(({ ctx, input }) => editAlertRule(ctx.deps, ctx.caller, input)),
  deleteRule: orgProcedure
    .meta(rest('DELETE', '/alerting/rules/{id}', 'Delete a custom alert rule (built-in rules: disable them)'))
    .input(z.object({ id: ZId }))
    .output(ZDeleted)
    .mutation(({ ctx, input }) => removeAlertRule(ctx.deps, ctx.caller, input.id)),

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
    .query(({ ctx, input }) => findAlertInstances(ctx.deps, ctx.caller, input)),
  get: orgProcedure
    .meta(rest('GET', '/alerting/alerts/{id}', 'An alert and its history'))
    .input(z.object({ id: ZId }))
    .output(ZAlertDetail)
    .query(({ ctx, input }) => getAlertDetail(ctx.deps, ctx.caller, input.id)),
  ack: orgProcedure
    .meta(rest('POST', '/alerting/ack', 'Acknowledge alerts (stops repeat notifications and escalation)'))
    .input(z.object({ ids: z.array(ZId).min(1).max(100) }))
    .output(z.array(ZAlertInstance))
    .mutation(({ ctx, input }) => ackAlertInstances(ctx.deps, ctx.caller, input.ids)),

  // ---- silences ----
  silences: orgProcedure
    .meta(rest('GET', '/alerting/silences', 'List silences'))
    .input(z.object({}))
    .output(z.array(ZSilence))
    .query(({ ctx }) => findSilences(ctx.deps, ctx.caller)),
  createSilence: orgProcedure
    .meta(rest('POST', '/alerting/silences', 'Create a silence'))
    .input(ZSilenceCreate)
    .output(ZSilence)
    .mutation(({ ctx, input }) => addSilence(ctx.deps, ctx.caller, input)),
  expireSilence: orgProcedure
    .meta(rest('POST', '/alerting/silences/{id}/expire', 'End a silence now'))
    .input(z.object({ id: ZId }))
    .output(ZSilence)
    .mutation(({ ctx, input }) => endSilence(ctx.deps, ctx.caller, input.id)),

  // ---- channels (secrets are never returned: shown as ***) ----
  channels: orgProcedure
    .input(z.object({}).optional())
    .output(z.array(ZChannel))
    .query(({ ctx }) => findChannels(ctx.deps, ctx.caller)),
  createChannel: orgProcedure
    .input(ZChannelCreate)
    .output(ZChannel)
    .mutation(({ ctx, input }) => addChannel(ctx.deps, ctx.caller, input)),
  updateChannel: orgProcedure
    .input(ZChannelUpdate)
    .output(ZChannel)
    .mutation(({ ctx, input }) => editChannel(ctx.deps, ctx.caller, input)),
  deleteChannel: orgProcedure
    .input(z.object({ id: ZId }))
    .output(ZDeleted)
    .mutation(({ ctx, input }) => removeChannel(ctx.deps, ctx.caller, input.id)),
  testChannel: orgProcedure
    .input(z.object({ id: ZId }))
    .output(ZDelivery)
    .mutation(({ ctx, input }) => sendTestNotification(ctx.deps, ctx.caller, input.id)),

  // ---- routing ----
  routing: orgProcedure
    .input(z.object({ clusterId: ZId.nullable().default(null) }))
    .output(ZRouting)
    .query(({ ctx, input }) => getRouting(ctx.deps, ctx.caller, input.clusterId)),
  setRouting: orgProcedure
    .input(ZRoutingSet)
    .output(ZRouting)
    .mutation(({ ctx, input }) => setRouting(ctx.deps, ctx.caller, input)),

  // ---- web push ----
  vapidPublicKey: orgProcedure
    .input(z.object({}).optional())
    .output(z.object({ publicKey: z.string().nullable() }))
    .query(({ ctx }) => getVapidPublicKey(ctx.deps, ctx.caller)),
  subscribePush: orgProcedure
    .input(ZPushSubscribe)
    .output(z.object({ id: z.string(), endpoint: z.string() }))
    .mutation(({ ctx, input }) => subscribePush(ctx.deps, ctx.caller, input)),
  unsubscribePush: orgProcedure
    .input(z.object({ endpoint: z.string().min(1).max(2048) }))
    .output(z.object({ removed: z.boolean() }))
    .mutation(({ ctx, input }) => unsubscribePush(ctx.deps, ctx.caller, input.endpoint)),
});
