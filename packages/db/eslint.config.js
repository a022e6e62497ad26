import base, { layer } from '@clusterscope/config/eslint';

/** Layering: the PostgreSQL repositories depend only on the schema. */
export default [...base, ...layer('@clusterscope/db', ['schema'])];
