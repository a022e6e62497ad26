export * from './health';
export * from './cluster-changes';
export * from './health-views';
export * from './cluster-status';
export * from './db-metrics';
