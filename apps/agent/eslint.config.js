import base, { layer } from '@clusterscope/config/eslint';

/** Layering: the agent depends only on the schema and bench packages (and talks HTTP to the public API). */
export default [...base, ...layer('@clusterscope/agent', ['schema', 'bench'])];
