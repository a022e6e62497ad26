/** `@clusterscope/db/testing`: what other packages' tests use; production code never imports it. */
export * from './pg';
export * from './org';
