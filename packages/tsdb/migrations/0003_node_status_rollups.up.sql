-- Per-minute node rollup (kept ~90 days).
CREATE TABLE IF NOT EXISTS node_status_1m {{ON_CLUSTER}}
(
    org_id String,
    cluster_id String,
    node_id UInt32,
    bucket DateTime('UTC'),
    samples SimpleAggregateFunction(sum, UInt64),
    not_live SimpleAggregateFunction(sum, UInt64),
    not_available SimpleAggregateFunction(sum, UInt64),
    last_ts SimpleAggregateFunction(max, DateTime64(3, 'UTC')),
    last_liveness AggregateFunction(argMax, String, DateTime64(3, 'UTC')),
    ranges_underreplicated_min SimpleAggregateFunction(min, UInt32),
    ranges_underreplicated_max SimpleAggregateFunction(max, UInt32),
    ranges_underreplicated_avg AggregateFunction(avg, UInt32),
    ranges_unavailable_min SimpleAggregateFunction(min, UInt32),
    ranges_unavailable_max SimpleAggregateFunction(max, UInt32),
    ranges_unavailable_avg AggregateFunction(avg, UInt32),
    replicas_min SimpleAggregateFunction(min, UInt32),
    replicas_max SimpleAggregateFunction(max, UInt32),
    replicas_avg AggregateFunction(avg, UInt32),
    replicas_leaseholders_min SimpleAggregateFunction(min, UInt32),
    replicas_leaseholders_max SimpleAggregateFunction(max, UInt32),
    replicas_leaseholders_avg AggregateFunction(avg, UInt32),
    replicas_leaders_avg AggregateFunction(avg, UInt32),
    ranges_avg AggregateFunction(avg, UInt32),
    live_bytes_max SimpleAggregateFunction(max, UInt64),
    capacity_max SimpleAggregateFunction(max, UInt64),
    capacity_used_max SimpleAggregateFunction(max, UInt64),
    capacity_available_min SimpleAggregateFunction(min, UInt64),
    uptime_s_max SimpleAggregateFunction(max, Float64)
)
ENGINE = {{ENGINE:AggregatingMergeTree()}}
PARTITION BY toYYYYMM(bucket)
ORDER BY (org_id, cluster_id, node_id, bucket)
TTL bucket + INTERVAL 90 DAY
SETTINGS ttl_only_drop_parts = 1;

CREATE MATERIALIZED VIEW IF NOT EXISTS node_status_1m_mv {{ON_CLUSTER}} TO node_status_1m AS
SELECT
    org_id,
    cluster_id,
    node_id,
    toStartOfMinute(ts) AS bucket,
    count() AS samples,
    countIf(liveness != 'LIVE') AS not_live,
    countIf(NOT is_available) AS not_available,
    max(ts) AS last_ts,
    argMaxState(toString(liveness), ts) AS last_liveness,
    min(ranges_underreplicated) AS ranges_underreplicated_min,
    max(ranges_underreplicated) AS ranges_underreplicated_max,
    avgState(ranges_underreplicated) AS ranges_underreplicated_avg,
    min(ranges_unavailable) AS ranges_unavailable_min,
    max(ranges_unavailable) AS ranges_unavailable_max,
    avgState(ranges_unavailable) AS ranges_unavailable_avg,
    min(replicas) AS replicas_min,
    max(replicas) AS replicas_max,
    avgState(replicas) AS replicas_avg,
    min(replicas_leaseholders) AS replicas_leaseholders_min,
    max(replicas_leaseholders) AS replicas_leaseholders_max,
    avgState(replicas_leaseholders) AS replicas_leaseholders_avg,
    avgState(replicas_leaders) AS replicas_leaders_avg,
    avgState(ranges) AS ranges_avg,
    max(live_bytes) AS live_bytes_max,
    max(capacity) AS capacity_max,
    max(capacity_used) AS capacity_used_max,
    min(capacity_available) AS capacity_available_min,
    max(uptime_s) AS uptime_s_max
FROM node_status
GROUP BY org_id, cluster_id, node_id, bucket;

-- Per-hour node rollup (kept ~2 years), fed from node_status directly.
CREATE TABLE IF NOT EXISTS node_status_1h {{ON_CLUSTER}}
(
    org_id String,
    cluster_id String,
    node_id UInt32,
    bucket DateTime('UTC'),
    samples SimpleAggregateFunction(sum, UInt64),
    not_live SimpleAggregateFunction(sum, UInt64),
    not_available SimpleAggregateFunction(sum, UInt64),
    last_ts SimpleAggregateFunction(max, DateTime64(3, 'UTC')),
    last_liveness AggregateFunction(argMax, String, DateTime64(3, 'UTC')),
    ranges_underreplicated_min SimpleAggregateFunction(min, UInt32),
    ranges_underreplicated_max SimpleAggregateFunction(max, UInt32),
    ranges_underreplicated_avg AggregateFunction(avg, UInt32),
    ranges_unavailable_min SimpleAggregateFunction(min, UInt32),
    ranges_unavailable_max SimpleAggregateFunction(max, UInt32),
    ranges_unavailable_avg AggregateFunction(avg, UInt32),
    replicas_min SimpleAggregateFunction(min, UInt32),
    replicas_max SimpleAggregateFunction(max, UInt32),
    replicas_avg AggregateFunction(avg, UInt32),
    replicas_leaseholders_min SimpleAggregateFunction(min, UInt32),
    replicas_leaseholders_max SimpleAggregateFunction(max, UInt32),
    replicas_leaseholders_avg AggregateFunction(avg, UInt32),
    replicas_leaders_avg AggregateFunction(avg, UInt32),
    ranges_avg AggregateFunction(avg, UInt32),
    live_bytes_max SimpleAggregateFunction(max, UInt64),
    capacity_max SimpleAggregateFunction(max, UInt64),
    capacity_used_max SimpleAggregateFunction(max, UInt64),
    capacity_available_min SimpleAggregateFunction(min, UInt64),
    uptime_s_max SimpleAggregateFunction(max, Float64)
)
ENGINE = {{ENGINE:AggregatingMergeTree()}}
PARTITION BY toYYYYMM(bucket)
ORDER BY (org_id, cluster_id, node_id, bucket)
TTL bucket + INTERVAL 730 DAY
SETTINGS ttl_only_drop_parts = 1;

CREATE MATERIALIZED VIEW IF NOT EXISTS node_status_1h_mv {{ON_CLUSTER}} TO node_status_1h AS
SELECT
    org_id,
    cluster_id,
    node_id,
    toStartOfHour(ts) AS bucket,
    count() AS samples,
    countIf(liveness != 'LIVE') AS not_live,
    countIf(NOT is_available) AS not_available,
    max(ts) AS last_ts,
    argMaxState(toString(liveness), ts) AS last_liveness,
    min(ranges_underreplicated) AS ranges_underreplicated_min,
    max(ranges_underreplicated) AS ranges_underreplicated_max,
    avgState(ranges_underreplicated) AS ranges_underreplicated_avg,
    min(ranges_unavailable) AS ranges_unavailable_min,
    max(ranges_unavailable) AS ranges_unavailable_max,
    avgState(ranges_unavailable) AS ranges_unavailable_avg,
    min(replicas) AS replicas_min,
    max(replicas) AS replicas_max,
    avgState(replicas) AS replicas_avg,
    min(replicas_leaseholders) AS replicas_leaseholders_min,
    max(replicas_leaseholders) AS replicas_leaseholders_max,
    avgState(replicas_leaseholders) AS replicas_leaseholders_avg,
    avgState(replicas_leaders) AS replicas_leaders_avg,
    avgState(ranges) AS ranges_avg,
    max(live_bytes) AS live_bytes_max,
    max(capacity) AS capacity_max,
    max(capacity_used) AS capacity_used_max,
    min(capacity_available) AS capacity_available_min,
    max(uptime_s) AS uptime_s_max
FROM node_status
GROUP BY org_id, cluster_id, node_id, bucket;
