export * from './common';
export * from './ingest';
