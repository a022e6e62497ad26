export * from './rules';
export * from './api';
export * from './silences-match';
export * from './channels';
export * from './deliveries';
