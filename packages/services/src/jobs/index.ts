export * from './agents';
export * from './jobs';
