-- Prometheus series scraped by the agent's prometheus input (kind 'metric'), stored raw: counters stay
-- counters, rates and quantiles are computed at query time (see src/queries/metrics.ts).
-- labels is a Map kept sorted by key by the encoder, so one label set is one key. name comes before
-- node_id in the ORDER BY because every panel reads one family across the cluster's nodes.
-- node_id 0 = a target that is not a database node (node_exporter, for example).
CREATE TABLE IF NOT EXISTS metrics {{ON_CLUSTER}}
(
    org_id String,
    cluster_id String,
    name LowCardinality(String),
    node_id UInt32,
    host LowCardinality(String),
    labels Map(LowCardinality(String), String),
    ts DateTime64(3, 'UTC'),
    type LowCardinality(String),
    value Float64
)
ENGINE = {{ENGINE:MergeTree()}}
PARTITION BY toYYYYMMDD(ts)
ORDER BY (org_id, cluster_id, name, node_id, host, labels, ts)
TTL toDateTime(ts) + INTERVAL 35 DAY
SETTINGS ttl_only_drop_parts = 1;

-- Per-minute rollup (kept ~90 days). What a reset-safe counter increase needs:
-- - first / last reading with their times: the step from the previous bucket (a reading below the
--   previous one is a reset and counts in full, as in PromQL);
-- - increase: deltaSumTimestamp, the sum of the positive steps inside the bucket, merged in time
--   order (a reset inside the bucket loses only the counts between the restart and the next reading);
-- - max: with first / last, a lower bound that holds even when deltaSumTimestamp cannot merge states
--   that overlap in time (late batches): the query takes the greatest of these bounds.
-- Gauges use sum / samples, min and max. Histogram buckets are counters (name_bucket with an le
-- label), so their quantiles read the same columns.
CREATE TABLE IF NOT EXISTS metrics_1m {{ON_CLUSTER}}
(
    org_id String,
    cluster_id String,
    name LowCardinality(String),
    node_id UInt32,
    host LowCardinality(String),
    labels Map(LowCardinality(String), String),
    bucket DateTime('UTC'),
    type SimpleAggregateFunction(anyLast, LowCardinality(String)),
    samples SimpleAggregateFunction(sum, UInt64),
    first_ts SimpleAggregateFunction(min, DateTime64(3, 'UTC')),
    last_ts SimpleAggregateFunction(max, DateTime64(3, 'UTC')),
    first AggregateFunction(argMin, Float64, DateTime64(3, 'UTC')),
    last AggregateFunction(argMax, Float64, DateTime64(3, 'UTC')),
    min SimpleAggregateFunction(min, Float64),
    max SimpleAggregateFunction(max, Float64),
    sum SimpleAggregateFunction(sum, Float64),
    increase AggregateFunction(deltaSumTimestamp, Float64, Int64)
)
ENGINE = {{ENGINE:AggregatingMergeTree()}}
PARTITION BY toYYYYMM(bucket)
ORDER BY (org_id, cluster_id, name, node_id, host, labels, bucket)
TTL bucket + INTERVAL 90 DAY
SETTINGS ttl_only_drop_parts = 1;

CREATE MATERIALIZED VIEW IF NOT EXISTS metrics_1m_mv {{ON_CLUSTER}} TO metrics_1m AS
SELECT
    org_id,
    cluster_id,
    name,
    node_id,
    host,
    labels,
    toStartOfMinute(ts) AS bucket,
    anyLast(type) AS type,
    count() AS samples,
    min(ts) AS first_ts,
    max(ts) AS last_ts,
    argMinState(value, ts) AS first,
    argMaxState(value, ts) AS last,
    min(value) AS min,
    max(value) AS max,
    sum(value) AS sum,
    deltaSumTimestampState(value, toUnixTimestamp64Milli(ts)) AS increase
FROM metrics
GROUP BY org_id, cluster_id, name, node_id, host, labels, bucket;

-- Per-hour rollup (kept ~2 years), fed from metrics directly; same columns as metrics_1m.
CREATE TABLE IF NOT EXISTS metrics_1h {{ON_CLUSTER}}
(
    org_id String,
    cluster_id String,
    name LowCardinality(String),
    node_id UInt32,
    host LowCardinality(String),
    labels Map(LowCardinality(String), String),
    bucket DateTime('UTC'),
    type SimpleAggregateFunction(anyLast, LowCardinality(String)),
    samples SimpleAggregateFunction(sum, UInt64),
    first_ts SimpleAggregateFunction(min, DateTime64(3, 'UTC')),
    last_ts SimpleAggregateFunction(max, DateTime64(3, 'UTC')),
    first AggregateFunction(argMin, Float64, DateTime64(3, 'UTC')),
    last AggregateFunction(argMax, Float64, DateTime64(3, 'UTC')),
    min SimpleAggregateFunction(min, Float64),
    max SimpleAggregateFunction(max, Float64),
    sum SimpleAggregateFunction(sum, Float64),
    increase AggregateFunction(deltaSumTimestamp, Float64, Int64)
)
ENGINE = {{ENGINE:AggregatingMergeTree()}}
PARTITION BY toYYYYMM(bucket)
ORDER BY (org_id, cluster_id, name, node_id, host, labels, bucket)
TTL bucket + INTERVAL 730 DAY
SETTINGS ttl_only_drop_parts = 1;

CREATE MATERIALIZED VIEW IF NOT EXISTS metrics_1h_mv {{ON_CLUSTER}} TO metrics_1h AS
SELECT
    org_id,
    cluster_id,
    name,
    node_id,
    host,
    labels,
    toStartOfHour(ts) AS bucket,
    anyLast(type) AS type,
    count() AS samples,
    min(ts) AS first_ts,
    max(ts) AS last_ts,
    argMinState(value, ts) AS first,
    argMaxState(value, ts) AS last,
    min(value) AS min,
    max(value) AS max,
    sum(value) AS sum,
    deltaSumTimestampState(value, toUnixTimestamp64Milli(ts)) AS increase
FROM metrics
GROUP BY org_id, cluster_id, name, node_id, host, labels, bucket;

-- Series the agent dropped past its cardinality cap (reported in every heartbeat).
ALTER TABLE heartbeats {{ON_CLUSTER}} ADD COLUMN IF NOT EXISTS metrics_dropped UInt64 DEFAULT 0;
