-- io.max limits in the cgroup rollups, so a 24 h / 30-day IO chart shows a limit where it was in force
-- (before, rollup points all carried the latest raw limit). A limit is the sum of the per-device
-- io.max values over the devices that have one; NULL = no device is limited.
-- The views are recreated with the new columns, and their "last" values now use
-- argMax(tuple(x), ts).1: plain argMax skips NULL, so a removed quota or memory limit (NULL = max)
-- kept showing the old one in the bucket where it was removed.
ALTER TABLE cgroup_usage_1m {{ON_CLUSTER}}
    ADD COLUMN IF NOT EXISTS io_rbps_limit SimpleAggregateFunction(anyLast, Nullable(UInt64)),
    ADD COLUMN IF NOT EXISTS io_wbps_limit SimpleAggregateFunction(anyLast, Nullable(UInt64));

ALTER TABLE cgroup_usage_1h {{ON_CLUSTER}}
    ADD COLUMN IF NOT EXISTS io_rbps_limit SimpleAggregateFunction(anyLast, Nullable(UInt64)),
    ADD COLUMN IF NOT EXISTS io_wbps_limit SimpleAggregateFunction(anyLast, Nullable(UInt64));

DROP VIEW IF EXISTS cgroup_usage_1m_mv {{ON_CLUSTER}};

CREATE MATERIALIZED VIEW IF NOT EXISTS cgroup_usage_1m_mv {{ON_CLUSTER}} TO cgroup_usage_1m AS
SELECT
    org_id,
    cluster_id,
    host,
    cgroup,
    toStartOfMinute(ts) AS bucket,
    max(node_id) AS node_id_max,
    count() AS samples,
    max(ts) AS last_ts,
    max(cpu_usage_usec) AS cpu_usage_usec_max,
    max(cpu_nr_periods) AS cpu_nr_periods_max,
    max(cpu_nr_throttled) AS cpu_nr_throttled_max,
    max(cpu_throttled_usec) AS cpu_throttled_usec_max,
    argMax(tuple(cpu_quota_usec), ts).1 AS cpu_quota_usec_last,
    argMax(cpu_period_usec, ts) AS cpu_period_usec_last,
    max(mem_current) AS mem_current_max,
    avgState(mem_current) AS mem_current_avg,
    argMax(tuple(mem_max), ts).1 AS mem_max_last,
    max(arraySum(io_rbytes)) AS io_rbytes_max,
    max(arraySum(io_wbytes)) AS io_wbytes_max,
    max(arraySum(io_rios)) AS io_rios_max,
    max(arraySum(io_wios)) AS io_wios_max,
    max(psi_cpu_some_avg10) AS psi_cpu_some_avg10_max,
    max(psi_memory_full_avg10) AS psi_memory_full_avg10_max,
    max(psi_io_full_avg10) AS psi_io_full_avg10_max,
    argMax(tuple(if(arrayExists(x -> isNotNull(x), io_rbps_max), arraySum(arrayMap(x -> ifNull(x, 0), io_rbps_max)), NULL)), ts).1 AS io_rbps_limit,
    argMax(tuple(if(arrayExists(x -> isNotNull(x), io_wbps_max), arraySum(arrayMap(x -> ifNull(x, 0), io_wbps_max)), NULL)), ts).1 AS io_wbps_limit
FROM cgroup_usage
GROUP BY org_id, cluster_id, host, cgroup, bucket;

DROP VIEW IF EXISTS cgroup_usage_1h_mv {{ON_CLUSTER}};

CREATE MATERIALIZED VIEW IF NOT EXISTS cgroup_usage_1h_mv {{ON_CLUSTER}} TO cgroup_usage_1h AS
SELECT
    org_id,
    cluster_id,
    host,
    cgroup,
    toStartOfHour(ts) AS bucket,
    max(node_id) AS node_id_max,
    count() AS samples,
    max(ts) AS last_ts,
    max(cpu_usage_usec) AS cpu_usage_usec_max,
    max(cpu_nr_periods) AS cpu_nr_periods_max,
    max(cpu_nr_throttled) AS cpu_nr_throttled_max,
    max(cpu_throttled_usec) AS cpu_throttled_usec_max,
    argMax(tuple(cpu_quota_usec), ts).1 AS cpu_quota_usec_last,
    argMax(cpu_period_usec, ts) AS cpu_period_usec_last,
    max(mem_current) AS mem_current_max,
    avgState(mem_current) AS mem_current_avg,
    argMax(tuple(mem_max), ts).1 AS mem_max_last,
    max(arraySum(io_rbytes)) AS io_rbytes_max,
    max(arraySum(io_wbytes)) AS io_wbytes_max,
    max(arraySum(io_rios)) AS io_rios_max,
    max(arraySum(io_wios)) AS io_wios_max,
    max(psi_cpu_some_avg10) AS psi_cpu_some_avg10_max,
    max(psi_memory_full_avg10) AS psi_memory_full_avg10_max,
    max(psi_io_full_avg10) AS psi_io_full_avg10_max,
    argMax(tuple(if(arrayExists(x -> isNotNull(x), io_rbps_max), arraySum(arrayMap(x -> ifNull(x, 0), io_rbps_max)), NULL)), ts).1 AS io_rbps_limit,
    argMax(tuple(if(arrayExists(x -> isNotNull(x), io_wbps_max), arraySum(arrayMap(x -> ifNull(x, 0), io_wbps_max)), NULL)), ts).1 AS io_wbps_limit
FROM cgroup_usage
GROUP BY org_id, cluster_id, host, cgroup, bucket;
