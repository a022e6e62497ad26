export * from './ingest';
export * from './ingest-prep';
export * from './ingest-pool';
export * from './parse-pool';
export * from './json-body';
