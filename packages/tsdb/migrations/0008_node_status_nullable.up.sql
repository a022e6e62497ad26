-- Unknown is not zero: range, replica and byte counts the source did not report (the default `cockroach node status`
-- table has no range columns; NULL cells of dead nodes) are NULL. Small per-node tables: the column rewrite is cheap.
-- The rollups skip unknown values (-If combinators keep the aggregate state types of 0003).

ALTER TABLE node_status {{ON_CLUSTER}}
    MODIFY COLUMN replicas Nullable(UInt32),
    MODIFY COLUMN replicas_leaders Nullable(UInt32),
    MODIFY COLUMN replicas_leaseholders Nullable(UInt32),
    MODIFY COLUMN ranges Nullable(UInt32),
    MODIFY COLUMN ranges_unavailable Nullable(UInt32),
    MODIFY COLUMN ranges_underreplicated Nullable(UInt32),
    MODIFY COLUMN live_bytes Nullable(UInt64),
    MODIFY COLUMN key_bytes Nullable(UInt64),
    MODIFY COLUMN value_bytes Nullable(UInt64),
    MODIFY COLUMN intent_bytes Nullable(UInt64),
    MODIFY COLUMN system_bytes Nullable(UInt64),
    MODIFY COLUMN capacity Nullable(UInt64),
    MODIFY COLUMN capacity_available Nullable(UInt64),
    MODIFY COLUMN capacity_used Nullable(UInt64);

ALTER TABLE node_latest {{ON_CLUSTER}}
    MODIFY COLUMN replicas Nullable(UInt32),
    MODIFY COLUMN replicas_leaders Nullable(UInt32),
    MODIFY COLUMN replicas_leaseholders Nullable(UInt32),
    MODIFY COLUMN ranges Nullable(UInt32),
    MODIFY COLUMN ranges_unavailable Nullable(UInt32),
    MODIFY COLUMN ranges_underreplicated Nullable(UInt32),
    MODIFY COLUMN live_bytes Nullable(UInt64),
    MODIFY COLUMN key_bytes Nullable(UInt64),
    MODIFY COLUMN value_bytes Nullable(UInt64),
    MODIFY COLUMN intent_bytes Nullable(UInt64),
    MODIFY COLUMN system_bytes Nullable(UInt64),
    MODIFY COLUMN capacity Nullable(UInt64),
    MODIFY COLUMN capacity_available Nullable(UInt64),
    MODIFY COLUMN capacity_used Nullable(UInt64);

DROP VIEW IF EXISTS node_status_1m_mv {{ON_CLUSTER}};

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
    minIf(assumeNotNull(ranges_underreplicated), ranges_underreplicated IS NOT NULL) AS ranges_underreplicated_min,
    maxIf(assumeNotNull(ranges_underreplicated), ranges_underreplicated IS NOT NULL) AS ranges_underreplicated_max,
    avgStateIf(assumeNotNull(ranges_underreplicated), ranges_underreplicated IS NOT NULL) AS ranges_underreplicated_avg,
    minIf(assumeNotNull(ranges_unavailable), ranges_unavailable IS NOT NULL) AS ranges_unavailable_min,
    maxIf(assumeNotNull(ranges_unavailable), ranges_unavailable IS NOT NULL) AS ranges_unavailable_max,
    avgStateIf(assumeNotNull(ranges_unavailable), ranges_unavailable IS NOT NULL) AS ranges_unavailable_avg,
    minIf(assumeNotNull(replicas), replicas IS NOT NULL) AS replicas_min,
    maxIf(assumeNotNull(replicas), replicas IS NOT NULL) AS replicas_max,
    avgStateIf(assumeNotNull(replicas), replicas IS NOT NULL) AS replicas_avg,
    minIf(assumeNotNull(replicas_leaseholders), replicas_leaseholders IS NOT NULL) AS replicas_leaseholders_min,
    maxIf(assumeNotNull(replicas_leaseholders), replicas_leaseholders IS NOT NULL) AS replicas_leaseholders_max,
    avgStateIf(assumeNotNull(replicas_leaseholders), replicas_leaseholders IS NOT NULL) AS replicas_leaseholders_avg,
    avgStateIf(assumeNotNull(replicas_leaders), replicas_leaders IS NOT NULL) AS replicas_leaders_avg,
    avgStateIf(assumeNotNull(ranges), ranges IS NOT NULL) AS ranges_avg,
    maxIf(assumeNotNull(live_bytes), live_bytes IS NOT NULL) AS live_bytes_max,
    maxIf(assumeNotNull(capacity), capacity IS NOT NULL) AS capacity_max,
    maxIf(assumeNotNull(capacity_used), capacity_used IS NOT NULL) AS capacity_used_max,
    minIf(assumeNotNull(capacity_available), capacity_available IS NOT NULL) AS capacity_available_min,
    max(uptime_s) AS uptime_s_max
FROM node_status
GROUP BY org_id, cluster_id, node_id, bucket;

DROP VIEW IF EXISTS node_status_1h_mv {{ON_CLUSTER}};

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
    minIf(assumeNotNull(ranges_underreplicated), ranges_underreplicated IS NOT NULL) AS ranges_underreplicated_min,
    maxIf(assumeNotNull(ranges_underreplicated), ranges_underreplicated IS NOT NULL) AS ranges_underreplicated_max,
    avgStateIf(assumeNotNull(ranges_underreplicated), ranges_underreplicated IS NOT NULL) AS ranges_underreplicated_avg,
    minIf(assumeNotNull(ranges_unavailable), ranges_unavailable IS NOT NULL) AS ranges_unavailable_min,
    maxIf(assumeNotNull(ranges_unavailable), ranges_unavailable IS NOT NULL) AS ranges_unavailable_max,
    avgStateIf(assumeNotNull(ranges_unavailable), ranges_unavailable IS NOT NULL) AS ranges_unavailable_avg,
    minIf(assumeNotNull(replicas), replicas IS NOT NULL) AS replicas_min,
    maxIf(assumeNotNull(replicas), replicas IS NOT NULL) AS replicas_max,
    avgStateIf(assumeNotNull(replicas), replicas IS NOT NULL) AS replicas_avg,
    minIf(assumeNotNull(replicas_leaseholders), replicas_leaseholders IS NOT NULL) AS replicas_leaseholders_min,
    maxIf(assumeNotNull(replicas_leaseholders), replicas_leaseholders IS NOT NULL) AS replicas_leaseholders_max,
    avgStateIf(assumeNotNull(replicas_leaseholders), replicas_leaseholders IS NOT NULL) AS replicas_leaseholders_avg,
    avgStateIf(assumeNotNull(replicas_leaders), replicas_leaders IS NOT NULL) AS replicas_leaders_avg,
    avgStateIf(assumeNotNull(ranges), ranges IS NOT NULL) AS ranges_avg,
    maxIf(assumeNotNull(live_bytes), live_bytes IS NOT NULL) AS live_bytes_max,
    maxIf(assumeNotNull(capacity), capacity IS NOT NULL) AS capacity_max,
    maxIf(assumeNotNull(capacity_used), capacity_used IS NOT NULL) AS capacity_used_max,
    minIf(assumeNotNull(capacity_available), capacity_available IS NOT NULL) AS capacity_available_min,
    max(uptime_s) AS uptime_s_max
FROM node_status
GROUP BY org_id, cluster_id, node_id, bucket;
