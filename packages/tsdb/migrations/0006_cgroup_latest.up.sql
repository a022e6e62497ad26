-- Latest state per cgroup, so the node table reads a tiny table instead of scanning minutes of raw
-- cgroup_usage. Rates need the previous reading too, so each row keeps the two newest readings
-- (groupArraySorted over the negated timestamp: smallest first = newest first); merges keep two.
CREATE TABLE IF NOT EXISTS cgroup_latest {{ON_CLUSTER}}
(
    org_id String,
    cluster_id String,
    host LowCardinality(String),
    cgroup LowCardinality(String),
    last_ts SimpleAggregateFunction(max, DateTime64(3, 'UTC')),
    -- (-ts ms, node_id, cpu_usage_usec, cpu_nr_periods, cpu_nr_throttled, cpu_quota_usec, cpu_period_usec,
    --  mem_current, mem_max, io read bytes, io write bytes)
    last2 AggregateFunction(groupArraySorted(2), Tuple(Int64, UInt32, UInt64, UInt64, UInt64, Nullable(UInt64), UInt64, UInt64, Nullable(UInt64), UInt64, UInt64))
)
ENGINE = {{ENGINE:AggregatingMergeTree()}}
ORDER BY (org_id, cluster_id, host, cgroup)
TTL toDateTime(last_ts) + INTERVAL 35 DAY;

CREATE MATERIALIZED VIEW IF NOT EXISTS cgroup_latest_mv {{ON_CLUSTER}} TO cgroup_latest AS
SELECT
    org_id,
    cluster_id,
    host,
    cgroup,
    max(ts) AS last_ts,
    groupArraySortedState(2)(tuple(
        -toUnixTimestamp64Milli(ts), node_id, cpu_usage_usec, cpu_nr_periods, cpu_nr_throttled,
        cpu_quota_usec, cpu_period_usec, mem_current, mem_max,
        arraySum(io_rbytes), arraySum(io_wbytes))) AS last2
FROM cgroup_usage
GROUP BY org_id, cluster_id, host, cgroup;

-- Backfill from the last day of raw data (later inserts arrive through the view).
INSERT INTO cgroup_latest
SELECT
    org_id,
    cluster_id,
    host,
    cgroup,
    max(ts) AS last_ts,
    groupArraySortedState(2)(tuple(
        -toUnixTimestamp64Milli(ts), node_id, cpu_usage_usec, cpu_nr_periods, cpu_nr_throttled,
        cpu_quota_usec, cpu_period_usec, mem_current, mem_max,
        arraySum(io_rbytes), arraySum(io_wbytes))) AS last2
FROM cgroup_usage
WHERE ts > now() - INTERVAL 1 DAY
GROUP BY org_id, cluster_id, host, cgroup;
