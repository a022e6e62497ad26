-- Smaller compression buffers for the wide raw tables. A merge (and an insert) holds a compression buffer
-- and a file buffer of max_compress_block_size per column stream; at the 1 MiB default one merge of two
-- small cgroup_usage parts (45 columns) took 164 MiB and one of node_status ~130 MiB, so the embedded
-- engine's tracked memory peaked at ~370 MiB under bench:load (4 merges). At 64 KiB it peaks at ~140
-- MiB. A granule of an 8-byte column is 64 KiB, which min_compress_block_size (64 KiB) already flushed
-- on; raw 30-day scans were no slower (bench:query). The rollups keep the default: their merges took
-- under 10 MiB, and their reads (24 h charts) were ~10 % slower with it.
ALTER TABLE node_status {{ON_CLUSTER}} MODIFY SETTING max_compress_block_size = 65536;
ALTER TABLE cgroup_usage {{ON_CLUSTER}} MODIFY SETTING max_compress_block_size = 65536;
ALTER TABLE host_metrics {{ON_CLUSTER}} MODIFY SETTING max_compress_block_size = 65536;
ALTER TABLE heartbeats {{ON_CLUSTER}} MODIFY SETTING max_compress_block_size = 65536;
ALTER TABLE metrics {{ON_CLUSTER}} MODIFY SETTING max_compress_block_size = 65536;
