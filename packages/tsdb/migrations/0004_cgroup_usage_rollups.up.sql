-- Per-minute cgroup rollup (kept ~90 days).
-- Counters are monotonic, so the bucket max is the last reading; rates come from differences of
-- consecutive buckets' maxima over last_ts (see getCgroupSeries).
CREATE TABLE IF NOT EXISTS cgroup_usage_1m {{ON_CLUSTER}}
(
    org_id String,
    cluster_id String,
    host LowCardinality(String),
    cgroup LowCardinality(String),
    bucket DateTime('UTC'),
    node_id_max SimpleAggregateFunction(max, UInt32),
    samples SimpleAggregateFunction(sum, UInt64),
    last_ts SimpleAggregateFunction(max, DateTime64(3, 'UTC')),
    cpu_usage_usec_max SimpleAggregateFunction(max, UInt64),
    cpu_nr_periods_max SimpleAggregateFunction(max, UInt64),
    cpu_nr_throttled_max SimpleAggregateFunction(max, UInt64),
    cpu_throttled_usec_max SimpleAggregateFunction(max, UInt64),
    cpu_quota_usec_last SimpleAggregateFunction(anyLast, Nullable(UInt64)),
    cpu_period_usec_last SimpleAggregateFunction(anyLast, UInt64),
    mem_current_max SimpleAggregateFunction(max, UInt64),
    mem_current_avg AggregateFunction(avg, UInt64),
    mem_max_last SimpleAggregateFunction(anyLast, Nullable(UInt64)),
    io_rbytes_max SimpleAggregateFunction(max, UInt64),
    io_wbytes_max SimpleAggregateFunction(max, UInt64),
    io_rios_max SimpleAggregateFunction(max, UInt64),
    io_wios_max SimpleAggregateFunction(max, UInt64),
    psi_cpu_some_avg10_max SimpleAggregateFunction(max, Nullable(Float32)),
    psi_memory_full_avg10_max SimpleAggregateFunction(max, Nullable(Float32)),
    psi_io_full_avg10_max SimpleAggregateFunction(max, Nullable(Float32))
)
ENGINE = {{ENGINE:AggregatingMergeTree()}}
PARTITION BY toYYYYMM(bucket)
ORDER BY (org_id, cluster_id, host, cgroup, bucket)
TTL bucket + INTERVAL 90 DAY
SETTINGS ttl_only_drop_parts = 1;

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
    argMax(cpu_quota_usec, ts) AS cpu_quota_usec_last,
    argMax(cpu_period_usec, ts) AS cpu_period_usec_last,
    max(mem_current) AS mem_current_max,
    avgState(mem_current) AS mem_current_avg,
    argMax(mem_max, ts) AS mem_max_last,
    max(arraySum(io_rbytes)) AS io_rbytes_max,
    max(arraySum(io_wbytes)) AS io_wbytes_max,
    max(arraySum(io_rios)) AS io_rios_max,
    max(arraySum(io_wios)) AS io_wios_max,
    max(psi_cpu_some_avg10) AS psi_cpu_some_avg10_max,
    max(psi_memory_full_avg10) AS psi_memory_full_avg10_max,
    max(psi_io_full_avg10) AS psi_io_full_avg10_max
FROM cgroup_usage
GROUP BY org_id, cluster_id, host, cgroup, bucket;

-- Per-hour cgroup rollup (kept ~2 years), fed from cgroup_usage directly.
-- Counters are monotonic, so the bucket max is the last reading; rates come from differences of
-- consecutive buckets' maxima over last_ts (see getCgroupSeries).
CREATE TABLE IF NOT EXISTS cgroup_usage_1h {{ON_CLUSTER}}
(
    org_id String,
    cluster_id String,
    host LowCardinality(String),
    cgroup LowCardinality(String),
    bucket DateTime('UTC'),
    node_id_max SimpleAggregateFunction(max, UInt32),
    samples SimpleAggregateFunction(sum, UInt64),
    last_ts SimpleAggregateFunction(max, DateTime64(3, 'UTC')),
    cpu_usage_usec_max SimpleAggregateFunction(max, UInt64),
    cpu_nr_periods_max SimpleAggregateFunction(max, UInt64),
    cpu_nr_throttled_max SimpleAggregateFunction(max, UInt64),
    cpu_throttled_usec_max SimpleAggregateFunction(max, UInt64),
    cpu_quota_usec_last SimpleAggregateFunction(anyLast, Nullable(UInt64)),
    cpu_period_usec_last SimpleAggregateFunction(anyLast, UInt64),
    mem_current_max SimpleAggregateFunction(max, UInt64),
    mem_current_avg AggregateFunction(avg, UInt64),
    mem_max_last SimpleAggregateFunction(anyLast, Nullable(UInt64)),
    io_rbytes_max SimpleAggregateFunction(max, UInt64),
    io_wbytes_max SimpleAggregateFunction(max, UInt64),
    io_rios_max SimpleAggregateFunction(max, UInt64),
    io_wios_max SimpleAggregateFunction(max, UInt64),
    psi_cpu_some_avg10_max SimpleAggregateFunction(max, Nullable(Float32)),
    psi_memory_full_avg10_max SimpleAggregateFunction(max, Nullable(Float32)),
    psi_io_full_avg10_max SimpleAggregateFunction(max, Nullable(Float32))
)
ENGINE = {{ENGINE:AggregatingMergeTree()}}
PARTITION BY toYYYYMM(bucket)
ORDER BY (org_id, cluster_id, host, cgroup, bucket)
TTL bucket + INTERVAL 730 DAY
SETTINGS ttl_only_drop_parts = 1;

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
    argMax(cpu_quota_usec, ts) AS cpu_quota_usec_last,
    argMax(cpu_period_usec, ts) AS cpu_period_usec_last,
    max(mem_current) AS mem_current_max,
    avgState(mem_current) AS mem_current_avg,
    argMax(mem_max, ts) AS mem_max_last,
    max(arraySum(io_rbytes)) AS io_rbytes_max,
    max(arraySum(io_wbytes)) AS io_wbytes_max,
    max(arraySum(io_rios)) AS io_rios_max,
    max(arraySum(io_wios)) AS io_wios_max,
    max(psi_cpu_some_avg10) AS psi_cpu_some_avg10_max,
    max(psi_memory_full_avg10) AS psi_memory_full_avg10_max,
    max(psi_io_full_avg10) AS psi_io_full_avg10_max
FROM cgroup_usage
GROUP BY org_id, cluster_id, host, cgroup, bucket;
