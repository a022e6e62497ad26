-- Smaller compression buffers for the wide tables. A merge (and an insert) holds a compression buffer
-- and a file buffer of max_compress_block_size per column stream; at the 1 MiB default one merge of two
-- small cgroup_usage parts (45 columns) took 164 MiB and one of node_status ~130 MiB, so the embedded
-- engine's tracked memory peaked at ~370 MiB under bench:load (4 merges). At 64 KiB it peaks at ~150
-- MiB. Blocks hardly change: a granule of an 8-byte column is 64 KiB, which min_compress_block_size
-- (64 KiB) already flushed on.
ALTER TABLE node_status {{ON_CLUSTER}} MODIFY SETTING max_compress_block_size = 65536;
ALTER TABLE cgroup_usage {{ON_CLUSTER}} MODIFY SETTING max_compress_block_size = 65536;
ALTER TABLE host_metrics {{ON_CLUSTER}} MODIFY SETTING max_compress_block_size = 65536;
ALTER TABLE heartbeats {{ON_CLUSTER}} MODIFY SETTING max_compress_block_size = 65536;
ALTER TABLE node_latest {{ON_CLUSTER}} MODIFY SETTING max_compress_block_size = 65536;
ALTER TABLE node_status_1m {{ON_CLUSTER}} MODIFY SETTING max_compress_block_size = 65536;
ALTER TABLE node_status_1h {{ON_CLUSTER}} MODIFY SETTING max_compress_block_size = 65536;
ALTER TABLE cgroup_usage_1m {{ON_CLUSTER}} MODIFY SETTING max_compress_block_size = 65536;
ALTER TABLE cgroup_usage_1h {{ON_CLUSTER}} MODIFY SETTING max_compress_block_size = 65536;
ALTER TABLE cgroup_latest {{ON_CLUSTER}} MODIFY SETTING max_compress_block_size = 65536;
ALTER TABLE metrics {{ON_CLUSTER}} MODIFY SETTING max_compress_block_size = 65536;
ALTER TABLE metrics_1m {{ON_CLUSTER}} MODIFY SETTING max_compress_block_size = 65536;
ALTER TABLE metrics_1h {{ON_CLUSTER}} MODIFY SETTING max_compress_block_size = 65536;
