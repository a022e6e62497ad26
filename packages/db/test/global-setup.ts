/**
 * Vitest globalSetup for the `int` project: one embedded PostgreSQL on a free port in a temp dir,
 * with every migration deployed into a template database that `createTestDatabase()` copies.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { findFreePort, startEmbeddedPostgres } from '../src/embedded';
import { deployMigrations } from '../src/migrate/index';
import './pg';

const TEMPLATE_DB = 'clusterscope_template';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const base = await mkdtemp(join(tmpdir(), 'clusterscope-int-pg-'));
  const pg = await startEmbeddedPostgres({
    dataDir: join(base, 'data'),
    port: await findFreePort(),
    database: TEMPLATE_DB,
  });
  try {
    await deployMigrations(pg.url);
  } catch (err) {
    await pg.stop();
    await rm(base, { recursive: true, force: true });
    throw err;
  }
  project.provide('pgTemplateUrl', pg.url);
  project.provide('pgTemplateDb', TEMPLATE_DB);
  return async () => {
    await pg.stop();
    await rm(base, { recursive: true, force: true });
  };
}
