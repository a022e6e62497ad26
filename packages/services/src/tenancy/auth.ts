import { betterAuth, type BetterAuthPlugin } from 'better-auth';
import { prismaAdapter } from 'better-auth/adapters/prisma';
import { APIError } from 'better-auth/api';
import { organization } from 'better-auth/plugins/organization';
import { hasPendingInvitation, type TDb } from '@clusterscope/db';
import { verificationMail, type TMailer } from '../core/mail';
import { ac, roles } from './permissions';

/** Who may create an account: anyone, only holders of a pending invitation, or nobody (admin CLI only). */
export const SIGNUP_MODES = ['open', 'invite', 'closed'] as const;
export type TSignupMode = (typeof SIGNUP_MODES)[number];
export const MIN_PASSWORD_LENGTH = 12;
/** Invitations expire after a week. */
export const INVITATION_TTL_S = 7 * 24 * 3600;

export interface TAuthOptions {
  secret: string;
  baseURL: string;
  /** Embedded/dev start: also trust http://localhost:* and http://127.0.0.1:* origins. */
  localOrigins?: boolean;
  /** Request header carrying the client address the runtime resolved (its sign-in limiter keys by it). */
  clientIpHeader?: string;
  /** Extra plugins from the runtime (e.g. SvelteKit cookies). */
  plugins?: BetterAuthPlugin[];
  /** Default `open`: scripts (admin CLI, seed) create users; the web passes its SIGNUP setting. */
  signup?: TSignupMode;
  /** Sends verification mail on sign-up when set (SMTP configured). */
  mailer?: TMailer | null;
}

/** Checked on every user creation path (form action, /api/auth/sign-up/email). */
async function assertSignupAllowed(db: TDb, mode: TSignupMode, email: string) {
  if (mode === 'open') return;
  if (mode === 'invite' && (await hasPendingInvitation(db, email))) return;
  throw new APIError('FORBIDDEN', {
    message:
      mode === 'closed'
        ? 'Sign-up is closed; ask an administrator for an account.'
        : 'Sign-up is by invitation only; ask an organization admin to invite this email.',
  });
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
    emailAndPassword: { enabled: true, minPasswordLength: MIN_PASSWORD_LENGTH },
    emailVerification: opts.mailer
      ? {
          sendOnSignUp: true,
          autoSignInAfterVerification: true,
          sendVerificationEmail: async ({ user, url }) => {
            await opts.mailer!.send(verificationMail({ to: user.email, link: url }));
          },
        }
      : undefined,
    databaseHooks: {
      user: {
        create: {
          before: async (user) => {
            await assertSignupAllowed(db, opts.signup ?? 'open', user.email);
          },
        },
      },
    },
    // No cookie cache: a signed session copy in a cookie stays valid after sign-out until it expires; every
    // request looks the session up so that sign-out (or a revoked session) ends it at once.
    session: { expiresIn: 60 * 60 * 24 * 14, cookieCache: { enabled: false } },
    telemetry: { enabled: false },
    rateLimit: { enabled: true, window: 60, max: 100 },
    advanced: {
      database: { generateId: () => crypto.randomUUID() },
      ...(opts.clientIpHeader && { ipAddress: { ipAddressHeaders: [opts.clientIpHeader] } }),
    },
    plugins: [
      organization({ ac, roles, creatorRole: 'owner', invitationExpiresIn: INVITATION_TTL_S }),
      ...(opts.plugins ?? []),
    ],
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
