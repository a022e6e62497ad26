import { betterAuth, type BetterAuthPlugin } from 'better-auth';
import { prismaAdapter } from 'better-auth/adapters/prisma';
import { organization } from 'better-auth/plugins/organization';
import type { TDb } from '@clusterscope/db';
import { ac, roles } from './permissions';

export interface TAuthOptions {
  secret: string;
  baseURL: string;
  /** Embedded/dev start: also trust http://localhost:* and http://127.0.0.1:* origins. */
  localOrigins?: boolean;
  /** Request header carrying the client address the runtime resolved (its sign-in limiter keys by it). */
  clientIpHeader?: string;
  /** Extra plugins from the runtime (e.g. SvelteKit cookies). */
  plugins?: BetterAuthPlugin[];
}

/** better-auth: email+password, sessions, organizations with our four roles. */
export function createAuth(db: TDb, opts: TAuthOptions) {
  return betterAuth({
    appName: 'Clusterscope',
    secret: opts.secret,
    baseURL: opts.baseURL,
    basePath: '/api/auth',
    trustedOrigins: opts.localOrigins
      ? [opts.baseURL, 'http://127.0.0.1:*', 'http://localhost:*']
      : [opts.baseURL],
    database: prismaAdapter(db, { provider: 'postgresql' }),
    emailAndPassword: { enabled: true, minPasswordLength: 8 },
    session: { expiresIn: 60 * 60 * 24 * 14, cookieCache: { enabled: true, maxAge: 60 } },
    telemetry: { enabled: false },
    rateLimit: { enabled: true, window: 60, max: 100 },
    advanced: {
      database: { generateId: () => crypto.randomUUID() },
      ...(opts.clientIpHeader && { ipAddress: { ipAddressHeaders: [opts.clientIpHeader] } }),
    },
    plugins: [organization({ ac, roles, creatorRole: 'owner' }), ...(opts.plugins ?? [])],
  });
}
export type TAuth = ReturnType<typeof createAuth>;

/** Creates a user with a password through better-auth (hashing stays in the library). */
export async function createUserWithPassword(
  auth: TAuth,
  input: { email: string; password: string; name: string },
) {
  const res = await auth.api.signUpEmail({ body: input });
  return res.user;
}
