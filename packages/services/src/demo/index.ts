export * from './seed';
export * from './demo';
export * from './demo-runs';
