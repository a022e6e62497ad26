-- Raw (hot-path) tables written by the ingest writer. Every ORDER BY starts with org_id;
-- every table has a retention TTL. Timestamps are UTC DateTime64(3).

CREATE TABLE IF NOT EXISTS node_status {{ON_CLUSTER}}
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
ENGINE = {{ENGINE:MergeTree()}}
PARTITION BY toYYYYMMDD(ts)
ORDER BY (org_id, cluster_id, node_id, ts)
TTL toDateTime(ts) + INTERVAL 35 DAY
SETTINGS ttl_only_drop_parts = 1;

-- node_id 0 = not tied to a database node. io_* and the limits are parallel arrays (one entry per device).
CREATE TABLE IF NOT EXISTS cgroup_usage {{ON_CLUSTER}}
(
    org_id String,
    cluster_id String,
    host LowCardinality(String),
    node_id UInt32,
    cgroup LowCardinality(String),
    ts DateTime64(3, 'UTC'),
    version UInt8,
    cpu_usage_usec UInt64,
    cpu_nr_periods UInt64,
    cpu_nr_throttled UInt64,
    cpu_throttled_usec UInt64,
    cpu_quota_usec Nullable(UInt64),
    cpu_period_usec UInt64,
    cpu_weight Nullable(UInt64),
    cpu_shares Nullable(UInt64),
    mem_current UInt64,
    mem_max Nullable(UInt64),
    mem_swap_current UInt64,
    mem_swap_max Nullable(UInt64),
    mem_anon UInt64,
    mem_file UInt64,
    io_device Array(LowCardinality(String)),
    io_rbytes Array(UInt64),
    io_wbytes Array(UInt64),
    io_rios Array(UInt64),
    io_wios Array(UInt64),
    io_rbps_max Array(Nullable(UInt64)),
    io_wbps_max Array(Nullable(UInt64)),
    io_riops_max Array(Nullable(UInt64)),
    io_wiops_max Array(Nullable(UInt64)),
    psi_cpu_some_avg10 Nullable(Float32),
    psi_cpu_some_total Nullable(UInt64),
    psi_memory_some_avg10 Nullable(Float32),
    psi_memory_full_avg10 Nullable(Float32),
    psi_memory_full_total Nullable(UInt64),
    psi_io_some_avg10 Nullable(Float32),
    psi_io_full_avg10 Nullable(Float32),
    psi_io_full_total Nullable(UInt64)
)
ENGINE = {{ENGINE:MergeTree()}}
PARTITION BY toYYYYMMDD(ts)
ORDER BY (org_id, cluster_id, host, cgroup, ts)
TTL toDateTime(ts) + INTERVAL 35 DAY
SETTINGS ttl_only_drop_parts = 1;

CREATE TABLE IF NOT EXISTS host_metrics {{ON_CLUSTER}}
(
    org_id String,
    cluster_id String,
    host LowCardinality(String),
    node_id UInt32,
    ts DateTime64(3, 'UTC'),
    cpus UInt16,
    load1 Float32,
    load5 Float32,
    load15 Float32,
    mem_total UInt64,
    mem_available UInt64,
    disk_path Array(String),
    disk_total Array(UInt64),
    disk_used Array(UInt64),
    disk_avail Array(UInt64)
)
ENGINE = {{ENGINE:MergeTree()}}
PARTITION BY toYYYYMMDD(ts)
ORDER BY (org_id, cluster_id, host, ts)
TTL toDateTime(ts) + INTERVAL 35 DAY
SETTINGS ttl_only_drop_parts = 1;

CREATE TABLE IF NOT EXISTS heartbeats {{ON_CLUSTER}}
(
    org_id String,
    cluster_id String,
    agent String,
    host LowCardinality(String),
    ts DateTime64(3, 'UTC'),
    version LowCardinality(String),
    uptime_s Float64,
    capabilities Array(LowCardinality(String)),
    outbox_bytes UInt64,
    outbox_pending UInt64,
    outbox_evictions UInt64
)
ENGINE = {{ENGINE:MergeTree()}}
PARTITION BY toYYYYMMDD(ts)
ORDER BY (org_id, cluster_id, host, ts)
TTL toDateTime(ts) + INTERVAL 30 DAY
SETTINGS ttl_only_drop_parts = 1;

-- Long format: one row per (interval line, metric).
CREATE TABLE IF NOT EXISTS bench_samples {{ON_CLUSTER}}
(
    org_id String,
    cluster_id String,
    run_id String,
    ts DateTime64(3, 'UTC'),
    elapsed_s Float64,
    metric LowCardinality(String),
    value Float64
)
ENGINE = {{ENGINE:MergeTree()}}
PARTITION BY toYYYYMM(ts)
ORDER BY (org_id, run_id, metric, elapsed_s)
TTL toDateTime(ts) + INTERVAL 730 DAY;

-- Summary values of a run; re-inserting a (run, metric) replaces it (latest ts wins).
CREATE TABLE IF NOT EXISTS bench_results {{ON_CLUSTER}}
(
    org_id String,
    run_id String,
    metric LowCardinality(String),
    value Float64,
    unit LowCardinality(String),
    direction LowCardinality(String),
    ts DateTime64(3, 'UTC')
)
ENGINE = {{ENGINE:ReplacingMergeTree(ts)}}
ORDER BY (org_id, run_id, metric)
TTL toDateTime(ts) + INTERVAL 1825 DAY;

-- Idempotency ledger of accepted ingest batches.
CREATE TABLE IF NOT EXISTS ingest_batches {{ON_CLUSTER}}
(
    org_id String,
    batch_id String,
    rows UInt32,
    ts DateTime64(3, 'UTC')
)
ENGINE = {{ENGINE:ReplacingMergeTree(ts)}}
PARTITION BY toYYYYMMDD(ts)
ORDER BY (org_id, batch_id)
TTL toDateTime(ts) + INTERVAL 7 DAY
SETTINGS ttl_only_drop_parts = 1;
