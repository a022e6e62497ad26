/** `npm run admin -- <command>`: scripted setup (CI runners, users, orgs) through the same services as the app. */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import {
  addMember,
  createDb,
  findApiToken,
  findClusterByName,
  findOrgBySlug,
  findUserByEmail,
  getCluster,
  type TDb,
} from '@clusterscope/db';
import { AppError, type TDeps } from '@clusterscope/services/core';
import { agentConfigSnippet, enrollAgent } from '@clusterscope/services/jobs';
import {
  createAuth,
  createCluster,
  createOrg,
  listClusters,
  listTokens,
  revokeToken,
  createToken,
  createUserWithPassword,
  MIN_PASSWORD_LENGTH,
  ZOrgCreate,
} from '@clusterscope/services/tenancy';
import { ZRole, ZTokenCreate } from '@clusterscope/schema';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadSecretKeys } from '@clusterscope/services/core';
import { sealWorkloadSecrets } from '@clusterscope/services/runs';
import { readLaunchEnv } from './lib/env';
import { openPostgres } from './lib/pg';

/** The admin CLI as the user runs it here (ADMIN_COMMAND): `npm run admin --`, or the image's plain node entry. */
const admin = readLaunchEnv().ADMIN_COMMAND;

const HELP = `Usage: ${admin} <command> [options]

Commands:
  cluster create --org <slug> --name <name> [--description <text>]
        Creates a cluster (agents and CI runs name it); prints its id.
  cluster list --org <slug>
  token create --org <slug> --name <name> --scopes <s1,s2> [--cluster <id|name>] [--expires-days <n>]
        Creates an API token; prints it as the last line of stdout (shown once).
        Scopes: ingest, runs:write, read, admin.
  token list --org <slug>
        API tokens (prefix, name, scopes, cluster, last use, state); agent credentials are under agents.
  token revoke --org <slug> --token <id|cs_xxxxxxxx prefix>
        The token is refused from its next request on.
  agent enroll --org <slug> --cluster <id|name> --name <agent> [--from-token <cs_…|token id|cs_xxxxxxxx prefix>]
        Enrolls an agent (its name is the agent config's \`host\`) and prints its credential as the last line
        of stdout (shown once), with the agent config on stderr. Only this credential may heartbeat as the
        agent and claim, lease, post output for and finish its jobs. --from-token converts an existing
        ingest token into the credential instead (scopes become [ingest], bound to the cluster), so an
        installed agent keeps its configured token; nothing is printed on stdout then.
  org create --name <name> --slug <slug> [--owner <email>]
  user create --email <email> --name <name> [--password <pw>] [--org <slug> --role <owner|admin|member|viewer>]
        Prints the generated password when --password is omitted.
  secrets rotate
        Re-seals every stored workload credential with SECRETS_KEY (older keys in SECRETS_KEY_PREVIOUS)
        and seals any still stored in clear text. Without SECRETS_KEY: DATA_DIR/secrets-key.

Uses DATABASE_URL when set, otherwise the embedded PostgreSQL under DATA_DIR (default .data/),
which must have been initialised by \`npm start\`.`;

class UsageError extends Error {}

/** The server's own ORIGIN (what agents must reach), as the launcher computes it. */
function serverOrigin(): string {
  const env = readLaunchEnv();
  return env.ORIGIN ?? `http://${env.HOST}:${env.PORT}`;
}

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
      'from-token': { type: 'string' },
      description: { type: 'string' },
      token: { type: 'string' },
    },
    strict: true,
  });
  const deps: TDeps = { db, ch: null as never };
  const auth = () => createAuth(db, { secret: randomBytes(32).toString('hex'), baseURL: 'http://127.0.0.1' });
  const orgBySlug = async (slug: string) => {
    const org = await findOrgBySlug(db, slug);
    if (!org)
      throw new UsageError(
        `no organization with slug '${slug}': create it with \`${admin} org create --name <name> --slug ${slug} --owner <email>\``,
      );
    return org;
  };
  /** The CLI acts as an owner of the org it names. */
  const ownerOf = (org: { id: string; slug: string }) =>
    ({ kind: 'user', userId: 'admin-cli', orgId: org.id, orgSlug: org.slug, role: 'owner' }) as const;
  /** A cluster by id or name; when missing, says how to create it. */
  const clusterOf = async (org: { id: string; slug: string }, idOrName: string) => {
    const c = (await getCluster(db, org.id, idOrName)) ?? (await findClusterByName(db, org.id, idOrName));
    if (!c)
      throw new UsageError(
        `cluster '${idOrName}' not found in '${org.slug}': create it with \`${admin} cluster create --org ${org.slug} --name ${idOrName}\``,
      );
    return c;
  };

  if (group === 'cluster' && action === 'create') {
    const org = await orgBySlug(need(values.org, 'org'));
    const c = await createCluster(deps, ownerOf(org), {
      name: need(values.name, 'name'),
      description: values.description,
    });
    console.error(`created cluster '${c.name}' in '${org.slug}'`);
    console.log(c.id);
    return;
  }
  if (group === 'cluster' && action === 'list') {
    const org = await orgBySlug(need(values.org, 'org'));
    const rows = await listClusters(deps, ownerOf(org));
    if (!rows.length) console.error(`no clusters in '${org.slug}' yet`);
    for (const c of rows) console.log(`${c.id}\t${c.name}${c.description ? `\t${c.description}` : ''}`);
    return;
  }
  if (group === 'token' && action === 'list') {
    const org = await orgBySlug(need(values.org, 'org'));
    const rows = await listTokens(deps, ownerOf(org));
    if (!rows.length) console.error(`no API tokens in '${org.slug}'`);
    const day = (d: Date | null) => (d ? d.toISOString().slice(0, 10) : '-');
    const state = (t: (typeof rows)[number]) =>
      t.revokedAt ? 'revoked' : t.expiresAt && t.expiresAt < new Date() ? 'expired' : 'active';
    for (const t of rows)
      console.log(
        [
          t.id,
          `${t.prefix}…`,
          t.name,
          t.scopes.join(','),
          t.clusterId ?? '(all clusters)',
          `used ${day(t.lastUsedAt)}`,
          state(t),
        ].join('\t'),
      );
    return;
  }
  if (group === 'token' && action === 'revoke') {
    const org = await orgBySlug(need(values.org, 'org'));
    const ref = need(values.token, 'token').replace(/…$/, '');
    const t =
      (await findApiToken(db, org.id, { id: ref })) ?? (await findApiToken(db, org.id, { prefix: ref }));
    if (!t)
      throw new UsageError(
        `no token '${ref}' in '${org.slug}' (see \`${admin} token list --org ${org.slug}\`)`,
      );
    await revokeToken(deps, ownerOf(org), t.id);
    console.error(`revoked token '${t.name}' (${t.prefix}…) of '${org.slug}'`);
    return;
  }

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
      throw new UsageError(input.error.issues.map((i) => `--${String(i.path[0])}: ${i.message}`).join('; '));
    const clusterId = values.cluster ? (await clusterOf(org, values.cluster)).id : null;
    const t = await createToken(deps, org.id, { ...input.data, clusterId });
    console.error(`created token '${t.name}' (${t.scopes.join(', ')}) for org '${org.slug}'`);
    console.log(t.token);
    return;
  }
  if (group === 'agent' && action === 'enroll') {
    const org = await orgBySlug(need(values.org, 'org'));
    const cluster = await clusterOf(org, need(values.cluster, 'cluster'));
    const r = await enrollAgent(deps, org.id, {
      cluster: cluster.id,
      name: need(values.name, 'name'),
      fromToken: values['from-token'],
    });
    const how = r.token ? 'new credential' : `converted token ${r.credential.prefix}… into its credential`;
    console.error(
      `enrolled agent '${r.agent.name}' in cluster '${r.agent.cluster}' of '${org.slug}' (${how})`,
    );
    if (r.token) {
      console.error(
        `agent config:\n${agentConfigSnippet({ url: serverOrigin(), cluster: r.agent.cluster, name: r.agent.name, token: r.token })}`,
      );
      console.log(r.token);
    }
    return;
  }
  if (group === 'org' && action === 'create') {
    const input = ZOrgCreate.safeParse({ name: need(values.name, 'name'), slug: need(values.slug, 'slug') });
    if (!input.success)
      throw new UsageError(input.error.issues.map((i) => `--${String(i.path[0])}: ${i.message}`).join('; '));
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
  if (group === 'secrets' && action === 'rotate') {
    const env = readLaunchEnv();
    let current = env.SECRETS_KEY;
    if (!current)
      try {
        current = readFileSync(path.join(env.DATA_DIR, 'secrets-key'), 'utf8').trim();
      } catch {
        throw new UsageError(`set SECRETS_KEY (no ${path.join(env.DATA_DIR, 'secrets-key')} either)`);
      }
    const keys = loadSecretKeys(current, env.SECRETS_KEY_PREVIOUS);
    const r = await sealWorkloadSecrets({ ...deps, secrets: keys }, { rotate: true });
    for (const f of r.failed) console.error(`admin: could not re-seal workload ${f}`);
    console.error(
      `re-sealed ${r.rotated}, sealed ${r.sealed} clear-text workload credential(s) with key ${keys.current.id}`,
    );
    if (r.failed.length)
      throw new Error(`${r.failed.length} secret(s) could not be opened with the given keys`);
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
    if (err instanceof UsageError) console.error(`Run \`${admin} --help\` for usage.`);
  } finally {
    await db.$disconnect();
    await pg.stop();
  }
  process.exit(code);
}

void main();
