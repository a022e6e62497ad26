/**
 * Directory confinement with symlinks resolved: the lexical check (jobRefusals) passed already; here the
 * real path of the directory (after creating what is missing inside an allowed dir) must lie inside the
 * real path of an allowed dir, so a symlink planted in (or as) the target cannot lead out.
 */
import { lookup } from 'node:dns/promises';
import { existsSync, mkdirSync, realpathSync } from 'node:fs';
import { isIP } from 'node:net';
import { dirname } from 'node:path';
import { hostRefusal, isInsideDir, normalizeDir, normalizeHost, targetHost } from '@clusterscope/schema';
import { JobError } from './argv';

const real = (p: string) => (existsSync(p) ? realpathSync(p) : p);

function nearestExisting(p: string): string {
  let cur = p;
  while (!existsSync(cur)) cur = dirname(cur);
  return cur;
}

/** Creates `dir` when missing and returns its real path; throws JobError when it leads out of `allowed`. */
export function confineDir(dir: string, allowed: readonly string[]): string {
  const d = normalizeDir(dir);
  if (!d) throw new JobError(`${dir} must be an absolute directory path without '..'`);
  const roots = allowed.map(normalizeDir).filter((a): a is string => a !== null);
  const outside = () =>
    new JobError(
      `refused by this agent's job limits: directory ${d} resolves outside jobs.allowed_dirs (${allowed.join(', ')})`,
    );
  // Before creating anything: the deepest existing ancestor, symlinks resolved, plus the missing rest.
  const base = nearestExisting(d);
  const rest = d.slice(base === '/' ? 0 : base.length);
  const planned = (realpathSync(base) + rest).replace(/\/+/g, '/');
  if (!roots.some((r) => isInsideDir(planned, real(r)))) throw outside();
  mkdirSync(d, { recursive: true, mode: 0o700 });
  const final = realpathSync(d);
  if (!roots.some((r) => isInsideDir(final, real(r)))) throw outside();
  return final;
}

/** Every address a name resolves to (the system resolver, as the tools use). */
const lookupAll = async (host: string) => (await lookup(host, { all: true })).map((a) => a.address);

/**
 * A host name is also checked by the addresses it resolves to: one that resolves to a link-local or metadata
 * address (169.254.169.254, fe80::/10, fd00:ec2::254) is refused even under `*`, unless that address is listed
 * by itself in jobs.allowed_hosts. Returns the address the tool is to connect to (the first answer, all of them
 * checked), or null for an IP literal or a target without a host (checked lexically by jobRefusals). A name
 * that does not resolve is refused: the tool would look it up again and could get another answer.
 */
export async function confineHost(
  target: string,
  allowed: readonly string[],
  resolve: (host: string) => Promise<string[]> = lookupAll,
): Promise<string | null> {
  const raw = targetHost(target);
  const host = raw ? normalizeHost(raw) : null;
  if (!host || isIP(host)) return null;
  let addresses: string[];
  try {
    addresses = await resolve(host);
  } catch (e) {
    throw new JobError(`host ${host} does not resolve (${(e as { code?: string }).code ?? 'lookup failed'})`);
  }
  if (addresses.length === 0) throw new JobError(`host ${host} does not resolve`);
  for (const a of addresses) {
    const special = hostRefusal(a, ['*']) !== null;
    if (special && hostRefusal(a, allowed) !== null)
      throw new JobError(
        `refused by this agent's job limits: host ${host} resolves to ${a}, a link-local or metadata address; it is reachable only when ${a} is listed by itself in jobs.allowed_hosts`,
      );
  }
  return addresses[0]!;
}
