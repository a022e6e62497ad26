import base, { layer } from '@clusterscope/config/eslint';

/** Layering: the ClickHouse repositories depend only on the schema. */
export default [...base, ...layer('@clusterscope/tsdb', ['schema'])];
