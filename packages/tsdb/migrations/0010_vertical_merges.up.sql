-- Vertical merges for the wide raw tables whatever their row count. A horizontal merge reads every column
-- stream of every part at once, holding a read buffer per stream and part; a vertical one merges the sort
-- key first, then the other columns one by one. ClickHouse switches to vertical at 131,072 rows, but under
-- bench:load the raw tables' day parts merge at 20k-130k rows: merging a 97k-row cgroup_usage part with a
-- 1.5k-row one peaked at 54 MiB horizontally and 7.5 MiB vertically, and took 99 ms instead of 222. Parts
-- under min_bytes_for_wide_part (10 MiB) are compact, and merges into a compact part stay horizontal (a few
-- MiB each). Tables with fewer than vertical_merge_algorithm_min_columns_to_activate (11) non-key columns
-- (heartbeats, metrics) stay horizontal too: their merges are small.
ALTER TABLE node_status {{ON_CLUSTER}} MODIFY SETTING vertical_merge_algorithm_min_rows_to_activate = 1;
ALTER TABLE cgroup_usage {{ON_CLUSTER}} MODIFY SETTING vertical_merge_algorithm_min_rows_to_activate = 1;
ALTER TABLE host_metrics {{ON_CLUSTER}} MODIFY SETTING vertical_merge_algorithm_min_rows_to_activate = 1;
