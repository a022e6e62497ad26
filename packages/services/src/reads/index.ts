export * from './series-cache';
export * from './dashboard';
