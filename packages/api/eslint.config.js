import base, { layer } from '@clusterscope/config/eslint';

/** Layering: procedures reach the services and the schema; their tests also set up the real stores. */
export default [...base, ...layer('@clusterscope/api', ['services', 'schema'], ['db', 'tsdb'])];
