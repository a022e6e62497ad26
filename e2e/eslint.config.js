import base, { e2eBoundary } from '@clusterscope/config/eslint';

/** Layering: e2e imports other workspace packages only through their testing entry points. */
export default [...base, ...e2eBoundary];
