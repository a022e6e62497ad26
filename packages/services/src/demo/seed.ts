import { randomBytes } from 'node:crypto';
import { addMember, findOrgBySlug, findUserByEmail, setAutoCreateClusters } from '@clusterscope/db';
import type { TDeps } from '../core/deps';
import { createUserWithPassword, type TAuth } from '../tenancy/auth';
import { createOrg } from '../tenancy/orgs';

export const DEMO_ORG = { name: 'Demo', slug: 'demo' };
export const DEMO_ADMIN_EMAIL = 'admin@clusterscope.local';

/** Seeds the demo org and its admin once; returns the generated login on first call, null afterwards. */
export async function seedDemo(
  deps: TDeps,
  auth: TAuth,
): Promise<{ email: string; password: string } | null> {
  let org = await findOrgBySlug(deps.db, DEMO_ORG.slug);
  if (!org) {
    org = await createOrg(deps, DEMO_ORG);
    // The demo lets CI name new clusters; other orgs opt in under Settings → Clusters.
    await setAutoCreateClusters(deps.db, org.id, true);
  }
  if (await findUserByEmail(deps.db, DEMO_ADMIN_EMAIL)) return null;
  const password = randomBytes(12).toString('base64url');
  const user = await createUserWithPassword(auth, { email: DEMO_ADMIN_EMAIL, password, name: 'Admin' });
  await addMember(deps.db, org.id, user.id, 'owner');
  return { email: DEMO_ADMIN_EMAIL, password };
}
