export * from './permissions';
export * from './caller';
export * from './access';
export * from './auth';
export * from './tokens';
export * from './orgs';
export * from './clusters';
