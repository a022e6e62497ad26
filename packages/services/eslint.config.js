import base, { layer } from '@clusterscope/config/eslint';

/** Layering: services reach the stores and the parsers; nothing above them (tests also feed real agent output). */
export default [...base, ...layer('@clusterscope/services', ['schema', 'db', 'tsdb', 'bench'], ['agent'])];
