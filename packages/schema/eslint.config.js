import base, { layer } from '@clusterscope/config/eslint';

/** Layering: the schema package depends on no other workspace package. */
export default [...base, ...layer('@clusterscope/schema', [])];
