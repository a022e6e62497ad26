/** `npm run admin -- <command>`: scripted setup (CI runners, users, orgs) through the same services as the app. */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { addMember, createDb, findOrgBySlug, findUserByEmail, type TDb } from '@clusterscope/db';
import {
  AppError,
  createAuth,
  createOrg,
  createToken,
  createUserWithPassword,
  MIN_PASSWORD_LENGTH,
  resolveCluster,
  ZOrgCreate,
  ZTokenCreate,
  type TDeps,
} from '@clusterscope/services';
import { ZRole } from '@clusterscope/schema';
import { readLaunchEnv } from './lib/env';
import { openPostgres } from './lib/pg';

const HELP = `Usage: npm run admin -- <command> [options]

Commands:
  token create --org <slug> --name <name> --scopes <s1,s2> [--cluster <id|name>] [--expires-days <n>]
        Creates an API token; prints it as the last line of stdout (shown once).
        Scopes: ingest, runs:write, read, admin.
  org create --name <name> --slug <slug> [--owner <email>]
  user create --email <email> --name <name> [--password <pw>] [--org <slug> --role <owner|admin|member|viewer>]
        Prints the generated password when --password is omitted.

Uses DATABASE_URL when set, otherwise the embedded PostgreSQL under DATA_DIR (default .data/),
which must have been initialised by \`npm start\`.`;

class UsageError extends Error {}

function need(v: string | undefined, flag: string): string {
  if (!v) throw new UsageError(`missing --${flag}`);
  return v;
}

async function run(db: TDb, argv: string[]) {
  const [group, action, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: {
      org: { type: 'string' },
      name: { type: 'string' },
      slug: { type: 'string' },
      scopes: { type: 'string' },
      cluster: { type: 'string' },
      'expires-days': { type: 'string' },
      owner: { type: 'string' },
      email: { type: 'string' },
      password: { type: 'string' },
      role: { type: 'string' },
    },
    strict: true,
  });
  const deps: TDeps = { db, ch: null as never };
  const auth = () => createAuth(db, { secret: randomBytes(32).toString('hex'), baseURL: 'http://127.0.0.1' });
  const orgBySlug = async (slug: string) => {
    const org = await findOrgBySlug(db, slug);
    if (!org) throw new UsageError(`no organization with slug '${slug}'`);
    return org;
  };

  if (group === 'token' && action === 'create') {
    const org = await orgBySlug(need(values.org, 'org'));
    const input = ZTokenCreate.safeParse({
      name: need(values.name, 'name'),
      scopes: need(values.scopes, 'scopes')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
      expiresInDays: values['expires-days'] ? Number(values['expires-days']) : null,
    });
    if (!input.success)
      throw new UsageError(input.error.issues.map((i) => `--${i.path[0]}: ${i.message}`).join('; '));
    let clusterId: string | null = null;
    if (values.cluster) {
      const sys = {
        kind: 'user',
        userId: 'admin-cli',
        orgId: org.id,
        orgSlug: org.slug,
        role: 'owner',
      } as const;
      clusterId = (await resolveCluster(deps, sys, values.cluster)).id;
    }
    const t = await createToken(deps, org.id, { ...input.data, clusterId });
    console.error(`created token '${t.name}' (${t.scopes.join(', ')}) for org '${org.slug}'`);
    console.log(t.token);
    return;
  }
  if (group === 'org' && action === 'create') {
    const input = ZOrgCreate.safeParse({ name: need(values.name, 'name'), slug: need(values.slug, 'slug') });
    if (!input.success)
      throw new UsageError(input.error.issues.map((i) => `--${i.path[0]}: ${i.message}`).join('; '));
    let ownerId: string | undefined;
    if (values.owner) {
      const u = await findUserByEmail(db, values.owner);
      if (!u) throw new UsageError(`no user with email ${values.owner}`);
      ownerId = u.id;
    }
    const org = await createOrg(deps, input.data, ownerId);
    console.log(org.slug);
    return;
  }
  if (group === 'user' && action === 'create') {
    const email = need(values.email, 'email');
    const password = values.password ?? randomBytes(12).toString('base64url');
    if (password.length < MIN_PASSWORD_LENGTH)
      throw new UsageError(`--password must be at least ${MIN_PASSWORD_LENGTH} characters`);
    const role = values.role ? ZRole.safeParse(values.role) : null;
    if (role && !role.success) throw new UsageError(`--role must be one of ${ZRole.options.join(', ')}`);
    if (await findUserByEmail(db, email)) throw new UsageError(`a user with email ${email} exists`);
    const user = await createUserWithPassword(auth(), { email, password, name: need(values.name, 'name') });
    if (values.org) await addMember(db, (await orgBySlug(values.org)).id, user.id, role?.data ?? 'member');
    console.error(`created user ${email}${values.org ? ` in '${values.org}'` : ''}`);
    if (!values.password) console.log(password);
    return;
  }
  throw new UsageError(`unknown command '${[group, action].filter(Boolean).join(' ')}'`);
}

async function main() {
  const argv = process.argv.slice(2).filter((a) => a !== '--');
  if (argv.length === 0 || argv.includes('--help') || argv.includes('-h')) {
    console.log(HELP);
    return;
  }
  const env = readLaunchEnv();
  let pg;
  try {
    pg = await openPostgres(env, { requireInitialised: true });
  } catch (err) {
    console.error(`admin: ${(err as Error).message}`);
    process.exit(1);
  }
  const db = createDb(pg.url);
  let code = 0;
  try {
    await run(db, argv);
  } catch (err) {
    code = err instanceof UsageError || err instanceof AppError ? 2 : 1;
    console.error(`admin: ${(err as Error).message}`);
    if (err instanceof UsageError) console.error('Run `npm run admin -- --help` for usage.');
  } finally {
    await db.$disconnect();
    await pg.stop();
  }
  process.exit(code);
}

void main();
