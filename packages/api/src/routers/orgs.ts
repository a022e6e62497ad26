import { z } from 'zod';
import {
  addMemberByEmail,
  deleteMember,
  getMembers,
  listMyOrgs,
  setMemberRole,
  ZMemberAdd,
} from '@clusterscope/services';
import { ZRole } from '@clusterscope/schema';
import { orgProcedure, router, userProcedure } from '../trpc';

export const orgsRouter = router({
  /** Organizations the signed-in user belongs to (org switcher). */
  mine: userProcedure.query(({ ctx }) => listMyOrgs(ctx.deps, ctx.userId)),
  current: orgProcedure.query(({ ctx }) => ({
    id: ctx.caller.orgId,
    slug: ctx.caller.orgSlug,
    role: ctx.caller.kind === 'user' ? ctx.caller.role : null,
  })),
  members: orgProcedure.query(({ ctx }) => getMembers(ctx.deps, ctx.caller)),
  addMember: orgProcedure
    .input(ZMemberAdd)
    .mutation(({ ctx, input }) => addMemberByEmail(ctx.deps, ctx.caller, input)),
  setRole: orgProcedure
    .input(z.object({ memberId: z.string().min(1), role: ZRole }))
    .mutation(({ ctx, input }) => setMemberRole(ctx.deps, ctx.caller, input.memberId, input.role)),
  removeMember: orgProcedure
    .input(z.object({ memberId: z.string().min(1) }))
    .mutation(({ ctx, input }) => deleteMember(ctx.deps, ctx.caller, input.memberId)),
});
