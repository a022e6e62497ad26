export interface TConnectionGate {
  /** A release function, or why the connection is refused. */
  acquire(userId: string, orgId: string): { release: () => void } | { refused: string };
}

/** Counts open live streams per user and per organization (this process) and refuses past the caps. */
export function createConnectionGate(opts: { perUser: number; perOrg: number }): TConnectionGate {
  const users = new Map<string, number>();
  const orgs = new Map<string, number>();
  const add = (m: Map<string, number>, k: string, d: number) => {
    const n = (m.get(k) ?? 0) + d;
    if (n > 0) m.set(k, n);
    else m.delete(k);
  };
  return {
    acquire(userId, orgId) {
      if ((users.get(userId) ?? 0) >= opts.perUser)
        return { refused: `too many live connections for this user (limit ${opts.perUser})` };
      if ((orgs.get(orgId) ?? 0) >= opts.perOrg)
        return { refused: `too many live connections for this organization (limit ${opts.perOrg})` };
      add(users, userId, 1);
      add(orgs, orgId, 1);
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          add(users, userId, -1);
          add(orgs, orgId, -1);
        },
      };
    },
  };
}
