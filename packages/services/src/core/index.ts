export * from './deps';
export * from './logger';
export * from './secrets';
export * from './errors';
export * from './mail';
export * from './outbound';
