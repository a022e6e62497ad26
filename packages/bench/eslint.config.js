import base, { layer } from '@clusterscope/config/eslint';

/** Layering: parsers and statistics depend only on the schema; the benchmark scripts also start the real PostgreSQL. */
export default [...base, ...layer('@clusterscope/bench', ['schema'], ['db'])];
