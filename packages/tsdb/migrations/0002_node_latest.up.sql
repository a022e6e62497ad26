-- Latest state per node: the overview reads this (FINAL on a tiny table) instead of scanning node_status.
CREATE TABLE IF NOT EXISTS node_latest {{ON_CLUSTER}}
(
    org_id String,
    cluster_id String,
    node_id UInt32,
    ts DateTime64(3, 'UTC'),
    address String,
    sql_address String,
    locality LowCardinality(String),
    build LowCardinality(String),
    started_at Nullable(DateTime64(3, 'UTC')),
    updated_at Nullable(DateTime64(3, 'UTC')),
    liveness LowCardinality(String),
    is_live Bool,
    is_available Bool,
    is_draining Bool,
    membership LowCardinality(String),
    replicas UInt32,
    replicas_leaders UInt32,
    replicas_leaseholders UInt32,
    ranges UInt32,
    ranges_unavailable UInt32,
    ranges_underreplicated UInt32,
    live_bytes UInt64,
    key_bytes UInt64,
    value_bytes UInt64,
    intent_bytes UInt64,
    system_bytes UInt64,
    capacity UInt64,
    capacity_available UInt64,
    capacity_used UInt64,
    uptime_s Float64
)
ENGINE = {{ENGINE:ReplacingMergeTree(ts)}}
ORDER BY (org_id, cluster_id, node_id)
TTL toDateTime(ts) + INTERVAL 90 DAY;

CREATE MATERIALIZED VIEW IF NOT EXISTS node_latest_mv {{ON_CLUSTER}} TO node_latest AS
SELECT
    org_id, cluster_id, node_id, ts, address, sql_address, locality, build, started_at, updated_at,
    liveness, is_live, is_available, is_draining, membership,
    replicas, replicas_leaders, replicas_leaseholders, ranges, ranges_unavailable, ranges_underreplicated,
    live_bytes, key_bytes, value_bytes, intent_bytes, system_bytes, capacity, capacity_available, capacity_used,
    uptime_s
FROM node_status;
