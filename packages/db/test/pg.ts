/** Per-test-file PostgreSQL databases on the cluster started by `global-setup.ts`. */
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { createDatabase, dropDatabase } from '../src/embedded';

declare module 'vitest' {
  export interface ProvidedContext {
    /** URL of the migrated template database on the shared embedded cluster. */
    pgTemplateUrl: string;
    /** Name of that template database. */
    pgTemplateDb: string;
  }
}

function uniqueName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
}

/** A fresh database with every migration applied (copied from the template). Returns its URL. */
export async function createTestDatabase(): Promise<string> {
  return createDatabase(inject('pgTemplateUrl'), uniqueName('test'), { template: inject('pgTemplateDb') });
}

/** A fresh, empty database (no migrations applied). Returns its URL. */
export async function createEmptyTestDatabase(): Promise<string> {
  return createDatabase(inject('pgTemplateUrl'), uniqueName('empty'), { template: 'template0' });
}

/** Drops a database made by the helpers above. */
export async function dropTestDatabase(url: string): Promise<void> {
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  await dropDatabase(url, name);
}
