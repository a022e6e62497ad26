import base, { layer } from '@clusterscope/config/eslint';

/** Layering: services reach the stores and the parsers; nothing above them. */
export default [...base, ...layer('@clusterscope/services', ['schema', 'db', 'tsdb', 'bench'])];
