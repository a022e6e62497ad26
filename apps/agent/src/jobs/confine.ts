/**
 * Directory confinement with symlinks resolved: the lexical check (jobRefusals) passed already; here the
 * real path of the directory (after creating what is missing inside an allowed dir) must lie inside the
 * real path of an allowed dir, so a symlink planted in (or as) the target cannot lead out.
 */
import { existsSync, mkdirSync, realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import { isInsideDir, normalizeDir } from '@clusterscope/schema';
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
