import { z } from 'zod';
import {
  acceptInvitation,
  cancelInvitation,
  deleteMember,
  getInvitations,
  getMembers,
  getMyInvitation,
  inviteMember,
  listMyOrgs,
  rejectInvitation,
  setMemberRole,
  ZInvite,
} from '@clusterscope/services';
import { ZRole } from '@clusterscope/schema';
import { orgProcedure, router, userProcedure } from '../trpc';

const ZId = z.object({ id: z.string().min(1).max(100) });

/** Member and invitation mutations are session-only (services refuse tokens, admin ones included). */
export const orgsRouter = router({
  /** Organizations the signed-in user belongs to (org switcher). */
  mine: userProcedure.query(({ ctx }) => listMyOrgs(ctx.deps, ctx.userId)),
  current: orgProcedure.query(({ ctx }) => ({
    id: ctx.caller.orgId,
    slug: ctx.caller.orgSlug,
    role: ctx.caller.kind === 'user' ? ctx.caller.role : null,
  })),
  members: orgProcedure.query(({ ctx }) => getMembers(ctx.deps, ctx.caller)),
  invitations: orgProcedure.query(({ ctx }) => getInvitations(ctx.deps, ctx.caller)),
  invite: orgProcedure.input(ZInvite).mutation(({ ctx, input }) => inviteMember(ctx.deps, ctx.caller, input)),
  cancelInvitation: orgProcedure
    .input(ZId)
    .mutation(({ ctx, input }) => cancelInvitation(ctx.deps, ctx.caller, input.id)),
  /** The invited user's side: by id, only for the user signed in with the invited email. */
  invitation: userProcedure
    .input(ZId)
    .query(({ ctx, input }) => getMyInvitation(ctx.deps, ctx.userId, input.id)),
  acceptInvitation: userProcedure
    .input(ZId)
    .mutation(({ ctx, input }) => acceptInvitation(ctx.deps, ctx.userId, input.id)),
  rejectInvitation: userProcedure
    .input(ZId)
    .mutation(({ ctx, input }) => rejectInvitation(ctx.deps, ctx.userId, input.id)),
  setRole: orgProcedure
    .input(z.object({ memberId: z.string().min(1), role: ZRole }))
    .mutation(({ ctx, input }) => setMemberRole(ctx.deps, ctx.caller, input.memberId, input.role)),
  removeMember: orgProcedure
    .input(z.object({ memberId: z.string().min(1) }))
    .mutation(({ ctx, input }) => deleteMember(ctx.deps, ctx.caller, input.memberId)),
});
