/** Contracts of organizations, members, invitations, API tokens and agent credentials. */
import { z } from 'zod';
import { ZRole, ZScope } from './common';
import { ZAgentName } from './workloads';
import { ZInputState } from './ingest';

const ZOrgRef = z.object({ id: z.string(), name: z.string(), slug: z.string() });

/** An organization the signed-in user belongs to, with their role (org switcher). */
export const ZMyOrg = ZOrgRef.extend({ role: z.string() });
export const ZCurrentOrg = z.object({ id: z.string(), slug: z.string(), role: ZRole.nullable() });

export const ZMember = z.object({
  id: z.string(),
  role: z.string(),
  createdAt: z.date(),
  user: z.object({ id: z.string(), name: z.string(), email: z.string() }),
});

export const ZInvite = z.object({ email: z.email().max(254), role: ZRole });
export type TInvite = z.infer<typeof ZInvite>;
export const ZInvitation = z.object({
  id: z.string(),
  email: z.string(),
  role: z.string(),
  expiresAt: z.date(),
  link: z.string(),
});
export const ZInvited = z.object({
  id: z.string(),
  email: z.string(),
  role: ZRole,
  link: z.string(),
  mailed: z.boolean(),
});
/** What the invite page shows the invited user. */
export const ZMyInvitation = z.object({
  id: z.string(),
  email: z.string(),
  role: z.string(),
  org: ZOrgRef,
  inviter: z.string(),
  expiresAt: z.date(),
});
export const ZInvitationAccepted = z.object({ org: ZOrgRef, role: z.string() });

export const ZTokenCreate = z.object({
  name: z.string().trim().min(1).max(100),
  scopes: z.array(ZScope).min(1),
  clusterId: z.string().min(1).nullish(),
  expiresInDays: z.number().int().positive().max(3650).nullish(),
});
export type TTokenCreate = z.infer<typeof ZTokenCreate>;

/** A token as listed (never its secret). */
export const ZToken = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  scopes: z.array(z.string()),
  clusterId: z.string().nullable(),
  agentId: z.string().nullable(),
  createdById: z.string().nullable(),
  createdAt: z.date(),
  expiresAt: z.date().nullable(),
  lastUsedAt: z.date().nullable(),
  revokedAt: z.date().nullable(),
});
/** A new token: the raw value is returned once. */
export const ZTokenCreated = ZToken.extend({ token: z.string() });

export const ZAgentEnroll = z.object({
  /** Cluster id or name. */
  cluster: z.string().trim().min(1).max(200),
  /** The agent's name: its `host` in the agent config. */
  name: ZAgentName,
});
export type TAgentEnroll = z.infer<typeof ZAgentEnroll>;

export const ZAgentListItem = z.object({
  id: z.string(),
  name: z.string(),
  clusterId: z.string().nullable(),
  cluster: z.object({ id: z.string(), name: z.string() }).nullable(),
  version: z.string(),
  capabilities: z.array(z.string()),
  disabledTools: z.array(z.string()),
  outboxBytes: z.number(),
  outboxEvictions: z.number(),
  uptimeS: z.number(),
  lastSeenAt: z.date().nullable(),
  createdAt: z.date(),
  jobLimits: z.unknown(),
  /** Each input's collection state from the latest heartbeat (empty: not reported). */
  inputs: z.array(ZInputState),
  credential: ZToken.pick({
    id: true,
    prefix: true,
    createdAt: true,
    lastUsedAt: true,
    revokedAt: true,
  }).nullable(),
});
export const ZAgentEnrolled = z.object({
  agent: z.object({ id: z.string(), name: z.string(), clusterId: z.string(), cluster: z.string() }),
  credential: z.object({ id: z.string(), prefix: z.string() }),
  /** The raw credential, shown once; null when an existing token was converted. */
  token: z.string().nullable(),
});

/** The agent config lines that go with a new credential (token goes in the env file in production). */
export const agentConfigSnippet = (a: { url?: string; cluster: string; name: string; token: string }) =>
  [
    `url: ${a.url ?? 'https://clusterscope.example.com'}`,
    `token: ${a.token}`,
    `cluster: ${a.cluster}`,
    `host: ${a.name}`,
    'jobs:',
    '  enabled: true',
  ].join('\n');

/** The answer of a delete/revoke/cancel: the id and what happened. */
export const ZRevoked = z.object({ id: z.string(), revoked: z.boolean() });
export const ZCanceled = z.object({ id: z.string(), canceled: z.boolean() });
export const ZRejected = z.object({ id: z.string(), rejected: z.boolean() });
export const ZRemoved = z.object({ id: z.string(), removed: z.boolean() });
export const ZDeleted = z.object({ id: z.string(), deleted: z.boolean() });
export const ZRoleSet = z.object({ id: z.string(), role: ZRole });
