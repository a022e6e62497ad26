export * from './common';
export * from './ingest';
export * from './bench';
export * from './compare';
export * from './runs';
export * from './workloads';
export * from './health';
export * from './views';
