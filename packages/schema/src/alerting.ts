/** On-call alerting contracts (issue 12): rules, instances, silences, channels, routing, deliveries, webhook. */
import { z } from 'zod';
import { ZName } from './workloads';
import { DATE_RANGE_MESSAGE, MAX_DATE_MS, MIN_DATE_MS, ZEpochMsQuery } from './common';

export const SEVERITIES = ['critical', 'warning', 'info'] as const;
export const ZSeverity = z.enum(SEVERITIES);
export type TSeverity = z.infer<typeof ZSeverity>;

export const ALERT_STATES = ['inactive', 'pending', 'firing', 'resolved'] as const;
export const ZAlertState = z.enum(ALERT_STATES);
export type TAlertState = z.infer<typeof ZAlertState>;

export const ALERT_COMPARISONS = ['gt', 'gte', 'lt', 'lte', 'eq', 'ne'] as const;
export const ZAlertComparison = z.enum(ALERT_COMPARISONS);
export type TAlertComparison = z.infer<typeof ZAlertComparison>;

/** node = one instance per subject (node, cgroup, agent); the others fold a cluster into one instance. */
export const AGGREGATIONS = ['node', 'max', 'min', 'avg', 'sum', 'count'] as const;
export const ZAggregation = z.enum(AGGREGATIONS);
export type TAggregation = z.infer<typeof ZAggregation>;

/**
 * Series a rule can watch: the latest value per subject each evaluation. `node.*` come from CockroachDB node
 * status (per node), `cgroup.*` from cgroup readings (per host × cgroup), `agent.*` from heartbeats.
 */
export const ALERT_SERIES = {
  'node.down': { subject: 'node', unit: '', help: '1 when liveness is DEAD or UNAVAILABLE' },
  'node.draining': { subject: 'node', unit: '', help: '1 when DRAINING or DECOMMISSIONING' },
  'node.stale': { subject: 'node', unit: '', help: '1 when no sample for 3 agent intervals' },
  'node.age_s': { subject: 'node', unit: 's', help: 'age of the newest sample' },
  'node.ranges_unavailable': { subject: 'node', unit: '', help: 'unavailable ranges' },
  'node.ranges_underreplicated': { subject: 'node', unit: '', help: 'under-replicated ranges' },
  'node.capacity_pct': { subject: 'node', unit: '%', help: 'store capacity used' },
  'node.replicas': { subject: 'node', unit: '', help: 'replicas' },
  'node.replicas_leaseholders': { subject: 'node', unit: '', help: 'leaseholders' },
  'node.ranges': { subject: 'node', unit: '', help: 'ranges' },
  'node.live_bytes': { subject: 'node', unit: 'B', help: 'live bytes' },
  'node.uptime_s': { subject: 'node', unit: 's', help: 'uptime' },
  'cgroup.cpu_cores': { subject: 'cgroup', unit: 'cores', help: 'CPU used' },
  'cgroup.cpu_pct_of_limit': { subject: 'cgroup', unit: '%', help: 'CPU used / cpu.max' },
  'cgroup.throttled_pct': { subject: 'cgroup', unit: '%', help: 'CFS periods throttled' },
  'cgroup.mem_bytes': { subject: 'cgroup', unit: 'B', help: 'memory in use' },
  'cgroup.mem_pct': { subject: 'cgroup', unit: '%', help: 'memory / memory limit' },
  'cgroup.io_read_bps': { subject: 'cgroup', unit: 'B/s', help: 'IO read' },
  'cgroup.io_write_bps': { subject: 'cgroup', unit: 'B/s', help: 'IO write' },
  'agent.outbox_evictions': { subject: 'agent', unit: '', help: 'outbox batches evicted since last check' },
  'agent.input_failures': { subject: 'agent', unit: '', help: "an input's collections failed in a row" },
  metric: { subject: 'metric', unit: '', help: 'a Prometheus series from the metrics input (see metric)' },
} as const;
export type TAlertSeries = keyof typeof ALERT_SERIES;
export const ZAlertSeries = z.enum(Object.keys(ALERT_SERIES) as [TAlertSeries, ...TAlertSeries[]]);

export const BUILTIN_RULES = [
  'node_down',
  'node_draining',
  'node_stale',
  'ranges_unavailable',
  'ranges_underreplicated',
  'capacity_warning',
  'capacity_critical',
  'cgroup_throttled',
  'cgroup_memory',
  'outbox_evicting',
  'input_failing',
  'sql_latency_p99',
  'txn_abort_rate',
  'txn_abort_pct',
] as const;
export const ZBuiltinRule = z.enum(BUILTIN_RULES);
export type TBuiltinRule = z.infer<typeof ZBuiltinRule>;

/** The id of an alerting object (rule, alert, silence, channel) or of a cluster in an alerting payload. */
export const ZAlertingId = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .regex(/^[\w-]+$/, 'letters, digits, _ and -');
const ZId = ZAlertingId;
const ZDuration = z
  .int()
  .min(0)
  .max(7 * 86_400);
const ZLabels = z
  .record(
    z.string().regex(/^[a-zA-Z_][a-zA-Z0-9_]{0,63}$/, 'label names: letters, digits, _'),
    z.string().max(256),
  )
  .refine((o) => Object.keys(o).length <= 20, 'at most 20 labels');
const ZHttpUrl = z.url({ protocol: /^https?$/, message: 'an http(s) URL' }).max(2048);
const ZText = (max: number) =>
  z
    .string()
    .max(max)
    // eslint-disable-next-line no-control-regex -- no control characters except newline/tab
    .regex(/^[^\x00-\x08\x0b-\x1f\x7f]*$/, 'no control characters');

// ---- rules ----

/**
 * How a `metric` rule reads the `metrics` table (Prometheus series scraped by the agent) over the last
 * `windowS` seconds, per node:
 * - `gauge`: the series' mean (summed over a node's label sets, e.g. stores);
 * - `rate`: a counter's per-second increase (PromQL `rate`, resets counted);
 * - `quantile`: `histogram_quantile(quantile, sum by (le) (rate(<name>_bucket)))` — `name` is the family;
 * - `ratio`: 100 × rate(name) / sum of rate(per…) (e.g. aborts as % of commits + aborts).
 * Then × `scale` (ns → ms: 0.000001). Only series whose labels equal every matcher count.
 */
export const METRIC_FNS = ['gauge', 'rate', 'quantile', 'ratio'] as const;
export const ZMetricFn = z.enum(METRIC_FNS);
export type TMetricFn = z.infer<typeof ZMetricFn>;
const ZMetricName = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .regex(/^[a-zA-Z_:][a-zA-Z0-9_:]*$/, 'a Prometheus metric name');
export const ZAlertMetric = z
  .object({
    name: ZMetricName,
    matchers: z
      .record(
        z.string().regex(/^[a-zA-Z_][a-zA-Z0-9_]{0,63}$/, 'label names: letters, digits, _'),
        z.string().max(256),
      )
      .refine((o) => Object.keys(o).length <= 10, 'at most 10 matchers')
      .default({}),
    fn: ZMetricFn,
    quantile: z.number().gt(0).lte(1).optional(),
    per: z.array(ZMetricName).min(1).max(5).optional(),
    scale: z.number().positive().finite().default(1),
    windowS: z.int().min(30).max(3600).default(120),
  })
  .superRefine((m, ctx) => {
    if ((m.fn === 'quantile') !== (m.quantile !== undefined))
      ctx.addIssue({
        code: 'custom',
        path: ['quantile'],
        message: m.fn === 'quantile' ? 'required for fn quantile' : 'only for fn quantile',
      });
    if ((m.fn === 'ratio') !== (m.per !== undefined))
      ctx.addIssue({
        code: 'custom',
        path: ['per'],
        message: m.fn === 'ratio' ? 'required for fn ratio' : 'only for fn ratio',
      });
  });
export type TAlertMetric = z.output<typeof ZAlertMetric>;

/** A rule's series and metric agree: `metric` is set exactly when series is 'metric' (null = ok). */
export function checkRuleMetric(series: string, metric: unknown): string | null {
  if (series === 'metric' && metric == null) return 'metric: required when series is metric';
  if (series !== 'metric' && metric != null) return 'metric: only for series metric';
  return null;
}

const ZAlertRuleFields = z.object({
  name: ZName,
  /** null/absent = every cluster of the org. */
  clusterId: ZId.nullable().optional(),
  series: ZAlertSeries,
  aggregation: ZAggregation,
  comparison: ZAlertComparison,
  threshold: z.number().finite(),
  forS: ZDuration,
  keepFiringForS: ZDuration,
  severity: ZSeverity,
  labels: ZLabels,
  /** Template: {{node}}, {{cluster}}, {{value}}, {{threshold}}, {{host}}, {{cgroup}}, {{agent}}, {{liveness}}. */
  summary: ZText(500),
  runbookUrl: z.union([ZHttpUrl, z.literal('')]),
  enabled: z.boolean(),
  metric: ZAlertMetric.nullable(),
});
export const ZAlertRuleCreate = ZAlertRuleFields.extend({
  aggregation: ZAggregation.default('node'),
  forS: ZDuration.default(0),
  keepFiringForS: ZDuration.default(0),
  labels: ZLabels.default({}),
  summary: ZText(500).default(''),
  runbookUrl: z.union([ZHttpUrl, z.literal('')]).default(''),
  enabled: z.boolean().default(true),
  metric: ZAlertMetric.nullable().default(null),
}).superRefine((r, ctx) => {
  const bad = checkRuleMetric(r.series, r.metric);
  if (bad) ctx.addIssue({ code: 'custom', path: ['metric'], message: bad.replace(/^metric: /, '') });
});
export type TAlertRuleCreate = z.input<typeof ZAlertRuleCreate>;
/** What a rule preview needs: the condition and where it applies (name, summary and routing do not matter). */
export const ZAlertRulePreviewInput = ZAlertRuleFields.pick({
  clusterId: true,
  series: true,
  comparison: true,
  threshold: true,
})
  .extend({
    aggregation: ZAggregation.default('node'),
    metric: ZAlertMetric.nullable().default(null),
  })
  .superRefine((r, ctx) => {
    const bad = checkRuleMetric(r.series, r.metric);
    if (bad) ctx.addIssue({ code: 'custom', path: ['metric'], message: bad.replace(/^metric: /, '') });
  });
export type TAlertRulePreviewInput = z.input<typeof ZAlertRulePreviewInput>;

/** One subject of a rule preview: its current value and whether the condition holds on it now. */
export const ZAlertPreviewSubject = z.object({
  clusterId: z.string(),
  clusterName: z.string(),
  labels: z.record(z.string(), z.string()),
  value: z.number().nullable(),
  /** Its data is older than 3 agent intervals (an alert would keep its state). */
  stale: z.boolean(),
  fires: z.boolean(),
});
export const ZAlertRulePreview = z.object({
  unit: z.string(),
  /** Subjects with a reading (at most PREVIEW_MAX_SUBJECTS listed, firing first). */
  total: z.number(),
  firing: z.number(),
  subjects: z.array(ZAlertPreviewSubject),
});
export type TAlertRulePreview = z.infer<typeof ZAlertRulePreview>;
export const PREVIEW_MAX_SUBJECTS = 200;

/** A patch: absent fields keep their value (no defaults here). */
export const ZAlertRuleUpdate = ZAlertRuleFields.omit({ clusterId: true }).partial().extend({ id: ZId });
export type TAlertRuleUpdate = z.input<typeof ZAlertRuleUpdate>;

export const ZAlertRule = z.object({
  id: z.string(),
  clusterId: z.string().nullable(),
  builtin: z.string().nullable(),
  name: z.string(),
  series: z.string(),
  aggregation: ZAggregation,
  comparison: ZAlertComparison,
  threshold: z.number(),
  forS: z.number(),
  keepFiringForS: z.number(),
  severity: ZSeverity,
  labels: z.record(z.string(), z.string()),
  summary: z.string(),
  runbookUrl: z.string(),
  enabled: z.boolean(),
  metric: ZAlertMetric.nullable(),
  createdAt: z.date(),
  updatedAt: z.date(),
});
export type TAlertRule = z.infer<typeof ZAlertRule>;

export const ZRuleListInput = z.object({ clusterId: ZId.optional() });

// ---- alert instances ----

export const ZAlertInstance = z.object({
  id: z.string(),
  ruleId: z.string(),
  ruleName: z.string(),
  clusterId: z.string(),
  clusterName: z.string(),
  key: z.string(),
  labels: z.record(z.string(), z.string()),
  state: ZAlertState,
  severity: ZSeverity,
  summary: z.string(),
  runbookUrl: z.string(),
  value: z.number().nullable(),
  activeAt: z.date().nullable(),
  firedAt: z.date().nullable(),
  resolvedAt: z.date().nullable(),
  ackedBy: z.string().nullable(),
  ackedAt: z.date().nullable(),
  /** Computed: an active silence matches it (still shown, not notified). */
  silenced: z.boolean(),
  updatedAt: z.date(),
});
export type TAlertInstance = z.infer<typeof ZAlertInstance>;

export const ZAlertEvent = z.object({
  id: z.string(),
  kind: z.enum(['state', 'ack', 'notify']),
  fromState: z.string().nullable(),
  toState: z.string().nullable(),
  value: z.number().nullable(),
  message: z.string(),
  actor: z.string().nullable(),
  at: z.date(),
});
export type TAlertEvent = z.infer<typeof ZAlertEvent>;

/** The rule as the alert page shows it: the expression, the threshold with its unit, `for`. */
export const ZAlertDetailRule = z.object({
  series: z.string(),
  aggregation: ZAggregation,
  comparison: ZAlertComparison,
  threshold: z.number(),
  forS: z.number(),
  keepFiringForS: z.number(),
  /** The series' unit ('%', 's', 'B', …; '' = a count). */
  unit: z.string(),
  metric: ZAlertMetric.nullable(),
});
export type TAlertDetailRule = z.infer<typeof ZAlertDetailRule>;

export const ZAlertDetail = ZAlertInstance.extend({
  history: z.array(ZAlertEvent),
  rule: ZAlertDetailRule.nullable(),
});
export type TAlertDetail = z.infer<typeof ZAlertDetail>;

/** The series of one alert around its active window, for its page's chart. */
export const ZAlertSeriesView = z.object({
  from: z.number(),
  to: z.number(),
  /** history: the subject's stored readings; evaluations: the values stored at the alert's state changes. */
  source: z.enum(['history', 'evaluations']),
  unit: z.string(),
  threshold: z.number().nullable(),
  data: z.array(z.tuple([z.number(), z.number().nullable()])),
  /** When the alert was active (pending from `from`, firing from `firedAt`); `to` null = still active. */
  windows: z.array(z.object({ from: z.number(), to: z.number().nullable(), firedAt: z.number().nullable() })),
});
export type TAlertSeriesView = z.infer<typeof ZAlertSeriesView>;

const csv = <T extends z.ZodType>(item: T) =>
  z.union([z.array(item), z.string().max(200)]).transform((v, ctx) => {
    const parts = Array.isArray(v) ? v : v.split(',').filter(Boolean);
    const out: z.infer<T>[] = [];
    for (const p of parts) {
      const r = item.safeParse(p);
      if (!r.success) {
        ctx.addIssue({ code: 'custom', message: `unknown value '${String(p)}'` });
        return z.NEVER;
      }
      out.push(r.data);
    }
    return out;
  });

/** Filters for the alerts list (URL-friendly: comma-separated lists, epoch-ms bounds). */
export const ZAlertListInput = z.object({
  state: csv(ZAlertState).optional(),
  severity: csv(ZSeverity).optional(),
  clusterId: ZId.optional(),
  /** Instances active (or resolved) in [from, to). */
  from: ZEpochMsQuery.optional(),
  to: ZEpochMsQuery.optional(),
  limit: z.coerce.number().int().min(1).max(500).default(200),
});
export type TAlertListInput = z.input<typeof ZAlertListInput>;

// ---- silences ----

/** A Date (or ISO string / epoch ms) between 1970 and 2299, as PostgreSQL and the UI handle it. */
const ZDate = z.coerce
  .date<unknown>()
  .refine((d) => d.getTime() >= MIN_DATE_MS && d.getTime() <= MAX_DATE_MS, DATE_RANGE_MESSAGE);

/** What a silence matches: every set matcher must match (null/absent = any). */
export const ZSilenceMatchers = z.object({
  clusterId: ZId.nullable().optional(),
  nodeId: z.int().min(0).max(1_000_000).nullable().optional(),
  ruleId: ZId.nullable().optional(),
});
export type TSilenceMatchers = z.input<typeof ZSilenceMatchers>;

/** A silence must name at least one matcher: one that matches everything mutes every page of the org. */
export const hasSilenceMatcher = (m: TSilenceMatchers) =>
  m.clusterId != null || m.nodeId != null || m.ruleId != null;
export const SILENCE_MATCHER_MESSAGE = 'choose at least one of cluster, node or rule';

/** Alerts a silence with these matchers would mute now (Alertmanager's preview before saving). */
export const ZSilencePreview = ZSilenceMatchers.refine(hasSilenceMatcher, {
  message: SILENCE_MATCHER_MESSAGE,
  path: ['clusterId'],
});

export const ZSilenceCreate = ZSilenceMatchers.extend({
  startsAt: ZDate.optional(),
  endsAt: ZDate,
  /** Why it is muted, for whoever finds the silence later: required. */
  comment: ZText(500).trim().min(1, 'required: say why these alerts are muted'),
})
  .refine(hasSilenceMatcher, { message: SILENCE_MATCHER_MESSAGE, path: ['clusterId'] })
  .refine((s) => (s.startsAt ?? new Date()).getTime() < s.endsAt.getTime(), {
    message: 'endsAt must be after startsAt',
    path: ['endsAt'],
  });
export type TSilenceCreate = z.input<typeof ZSilenceCreate>;

export const ZSilence = z.object({
  id: z.string(),
  clusterId: z.string().nullable(),
  nodeId: z.number().nullable(),
  ruleId: z.string().nullable(),
  startsAt: z.date(),
  endsAt: z.date(),
  createdBy: z.string(),
  comment: z.string(),
  active: z.boolean(),
  createdAt: z.date(),
});
export type TSilence = z.infer<typeof ZSilence>;

// ---- channels ----

export const CHANNEL_KINDS = ['webhook', 'slack', 'email', 'push', 'ntfy'] as const;
export const ZChannelKind = z.enum(CHANNEL_KINDS);
export type TChannelKind = z.infer<typeof ZChannelKind>;

/** Shown instead of a stored secret; sending it back keeps the stored value. */
export const SECRET_MASK = '***';
const ZSecretInput = z.string().min(1).max(2048);

/** Per kind: `config` is stored in clear, `secret` is sealed and only ever shown as `***`. */
export const ZChannelSettings = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('webhook'),
    config: z.object({ url: ZHttpUrl }),
    /** HMAC-SHA256 key for X-Clusterscope-Signature. */
    secret: z.object({ hmacSecret: ZSecretInput }),
  }),
  z.object({
    kind: z.literal('slack'),
    config: z.object({}).default({}),
    secret: z.object({ url: z.union([ZHttpUrl, z.literal(SECRET_MASK)]) }),
  }),
  z.object({
    kind: z.literal('email'),
    config: z.object({ to: z.array(z.email().max(254)).min(1).max(20) }),
    secret: z.object({}).default({}),
  }),
  z.object({
    kind: z.literal('push'),
    /** Users whose subscriptions get pushed; empty = every member of the org with a subscription. */
    config: z.object({ userIds: z.array(ZId).max(100).default([]) }),
    secret: z.object({}).default({}),
  }),
  z.object({
    kind: z.literal('ntfy'),
    config: z.object({ url: ZHttpUrl }),
    secret: z.object({ token: z.union([ZSecretInput, z.literal('')]).default('') }).default({ token: '' }),
  }),
]);
export type TChannelSettings = z.output<typeof ZChannelSettings>;

export const ZChannelCreate = z.intersection(
  z.object({ name: ZName, enabled: z.boolean().default(true) }),
  ZChannelSettings,
);
export type TChannelCreate = z.input<typeof ZChannelCreate>;
/**
 * ZChannelCreate as one object (what the REST adapter needs for a body): the same fields, checked per kind by
 * ZChannelSettings so an issue names its field (`config.url`).
 */
export const ZChannelCreateBody = z
  .object({
    name: ZName,
    enabled: z.boolean().default(true),
    kind: ZChannelKind,
    config: z.record(z.string(), z.unknown()).default({}),
    secret: z.record(z.string(), z.unknown()).default({}),
  })
  .superRefine((v, ctx) => {
    const r = ZChannelSettings.safeParse(v);
    if (!r.success)
      for (const i of r.error.issues) ctx.addIssue({ code: 'custom', path: i.path, message: i.message });
  });
/** name/enabled alone, or also kind (must stay the same) + config + secret (`***` keeps a stored secret). */
export const ZChannelUpdate = z.object({
  id: ZId,
  name: ZName.optional(),
  enabled: z.boolean().optional(),
  kind: ZChannelKind.optional(),
  config: z.record(z.string(), z.unknown()).optional(),
  secret: z.record(z.string(), z.unknown()).optional(),
});
export type TChannelUpdate = z.input<typeof ZChannelUpdate>;

export const ZChannel = z.object({
  id: z.string(),
  name: z.string(),
  kind: ZChannelKind,
  config: z.record(z.string(), z.unknown()),
  /** Secret fields, each shown as `***`. */
  secret: z.record(z.string(), z.literal(SECRET_MASK)),
  enabled: z.boolean(),
  createdAt: z.date(),
});
export type TChannel = z.infer<typeof ZChannel>;

export const DELIVERY_STATUSES = ['pending', 'sent', 'failed'] as const;
export const ZDelivery = z.object({
  id: z.string(),
  channelId: z.string(),
  kind: z.enum(['firing', 'resolved', 'test', 'benchmark']),
  title: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.number(),
  lastError: z.string().nullable(),
  nextAttemptAt: z.date(),
  sentAt: z.date().nullable(),
  createdAt: z.date(),
});
export type TDelivery = z.infer<typeof ZDelivery>;

// ---- routing ----

export const ZRoute = z.object({
  severity: ZSeverity,
  channelIds: z.array(ZId).max(20),
  /** Critical only: not acknowledged within N minutes → also the escalation channels. */
  escalateAfterMin: z.int().min(1).max(1440).nullable().default(null),
  escalationChannelIds: z.array(ZId).max(20).default([]),
});
export type TRoute = z.infer<typeof ZRoute>;

export const ZGrouping = z.object({
  groupWaitS: z.int().min(0).max(3600),
  groupIntervalS: z.int().min(1).max(86_400),
  repeatIntervalS: z
    .int()
    .min(60)
    .max(7 * 86_400),
});
export type TGrouping = z.infer<typeof ZGrouping>;
export const DEFAULT_GROUPING: TGrouping = { groupWaitS: 30, groupIntervalS: 300, repeatIntervalS: 14_400 };

export const ZRouting = z.object({
  /** null = the org's default routes; a cluster id = that cluster's override (falls back per severity). */
  clusterId: z.string().nullable(),
  routes: z.array(ZRoute),
  grouping: ZGrouping,
});
export type TRouting = z.infer<typeof ZRouting>;

export const ZRoutingSet = z.object({
  clusterId: ZId.nullable().default(null),
  routes: z
    .array(ZRoute)
    .max(3)
    .refine((rs) => new Set(rs.map((r) => r.severity)).size === rs.length, 'one route per severity'),
  /** Org-wide only (ignored with a clusterId). */
  grouping: ZGrouping.optional(),
});
export type TRoutingSet = z.input<typeof ZRoutingSet>;

/**
 * Severities whose firing alerts reach nobody: no route (org-wide or of any cluster) names an enabled
 * channel for them. `channels` = enabled channels in the org (0: nothing is configured at all).
 */
export const ZRoutingGap = z.object({ severities: z.array(ZSeverity), channels: z.number() });
export type TRoutingGap = z.infer<typeof ZRoutingGap>;

// ---- push ----

export const ZPushSubscribe = z.object({
  endpoint: ZHttpUrl,
  keys: z.object({
    p256dh: z
      .string()
      .min(16)
      .max(256)
      .regex(/^[A-Za-z0-9_=-]+$/),
    auth: z
      .string()
      .min(8)
      .max(64)
      .regex(/^[A-Za-z0-9_=-]+$/),
  }),
});
export type TPushSubscribe = z.infer<typeof ZPushSubscribe>;

/** JSON the service worker receives in a push message. */
export const ZPushPayload = z.object({
  title: z.string(),
  body: z.string(),
  /** Page to open on click. */
  url: z.string(),
  /** Alert instance ids in this notification. */
  alertIds: z.array(z.string()),
  /** Same-origin POST (session cookie, JSON body {ids}) that acknowledges them: /api/v1/alerting/ack. */
  ackUrl: z.string(),
  org: z.string(),
  tag: z.string(),
  status: z.enum(['firing', 'resolved', 'test']),
});
export type TPushPayload = z.infer<typeof ZPushPayload>;

// ---- webhook payload (Alertmanager webhook v4 shape) ----

export const ZWebhookAlert = z.object({
  status: z.enum(['firing', 'resolved']),
  labels: z.record(z.string(), z.string()),
  annotations: z.record(z.string(), z.string()),
  startsAt: z.string(),
  /** "0001-01-01T00:00:00Z" while firing, as Alertmanager sends. */
  endsAt: z.string(),
  generatorURL: z.string(),
  fingerprint: z.string(),
});
export const ZWebhookPayload = z
  .object({
    version: z.literal('4'),
    groupKey: z.string(),
    truncatedAlerts: z.number(),
    status: z.enum(['firing', 'resolved']),
    receiver: z.string(),
    groupLabels: z.record(z.string(), z.string()),
    commonLabels: z.record(z.string(), z.string()),
    commonAnnotations: z.record(z.string(), z.string()),
    externalURL: z.string(),
    alerts: z.array(ZWebhookAlert),
    /** Clusterscope extras: one-line title ("3 nodes down in prod-east") and the org slug. */
    title: z.string(),
    org: z.string(),
  })
  .describe(
    'POSTed to webhook channels; header X-Clusterscope-Signature: sha256=<hex HMAC-SHA256 of the raw body, channel secret as key>',
  );
export type TWebhookPayload = z.infer<typeof ZWebhookPayload>;
