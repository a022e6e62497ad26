import { z } from 'zod';
import {
  acceptInvitation,
  cancelInvitation,
  removeMember,
  getMembers,
  getMyInvitation,
  inviteMember,
  rejectInvitation,
  setMemberRole,
} from '@clusterscope/services/tenancy';
import {
  ZCanceled,
  ZInvitationAccepted,
  ZInvite,
  ZInvited,
  ZMember,
  ZMyInvitation,
  ZMyOrg,
  ZRejected,
  ZRemoved,
  ZRole,
  ZRoleSet,
} from '@clusterscope/schema';
import { myOrgs, orgProcedure, router, userProcedure, svc } from '../trpc';

const ZId = z.object({ id: z.string().min(1).max(100) });

/** Member and invitation mutations are session-only (services refuse tokens, admin ones included). */
export const orgsRouter = router({
  /** Organizations the signed-in user belongs to (org switcher). */
  mine: userProcedure.output(z.array(ZMyOrg)).query(({ ctx }) => myOrgs(ctx, ctx.userId)),
  members: orgProcedure.output(z.array(ZMember)).query(svc(getMembers)),
  invite: orgProcedure.input(ZInvite).output(ZInvited).mutation(svc(inviteMember)),
  cancelInvitation: orgProcedure.input(ZId).output(ZCanceled).mutation(svc(cancelInvitation, 'id')),
  /** The invited user's side: by id, only for the user signed in with the invited email. */
  invitation: userProcedure
    .input(ZId)
    .output(ZMyInvitation)
    .query(({ ctx, input }) => getMyInvitation(ctx.deps, ctx.userId, input.id)),
  acceptInvitation: userProcedure
    .input(ZId)
    .output(ZInvitationAccepted)
    .mutation(({ ctx, input }) => acceptInvitation(ctx.deps, ctx.userId, input.id)),
  rejectInvitation: userProcedure
    .input(ZId)
    .output(ZRejected)
    .mutation(({ ctx, input }) => rejectInvitation(ctx.deps, ctx.userId, input.id)),
  setRole: orgProcedure
    .input(z.object({ memberId: z.string().min(1), role: ZRole }))
    .output(ZRoleSet)
    .mutation(({ ctx, input }) => setMemberRole(ctx.deps, ctx.caller, input.memberId, input.role)),
  removeMember: orgProcedure
    .input(z.object({ memberId: z.string().min(1) }))
    .output(ZRemoved)
    .mutation(svc(removeMember, 'memberId')),
});
