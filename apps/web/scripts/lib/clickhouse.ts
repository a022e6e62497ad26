/**
 * `@clusterscope/web/clickhouse`: the app's ClickHouse opener, for e2e fixtures that read a stopped app's chDB
 * directory (e2e does not depend on the tsdb package itself).
 */
export { openClickHouse } from '@clusterscope/tsdb';
