export * from './client';
export * from './repos/orgs';
export * from './repos/tokens';
export * from './repos/clusters';
export * from './repos/agents';
export * from './repos/audit';
export { Prisma } from './generated/prisma/client';
export type { RunStatus } from './generated/prisma/client';
export * from './live';
