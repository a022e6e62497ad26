/**
 * `pnpm migrate <command>`: offline Prisma migrations. Uses DATABASE_URL when set; otherwise a
 * throwaway embedded PostgreSQL in a temp directory (enough for `dev` and `check-drift`).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { startEmbeddedPostgres } from '../embedded';
import { readDbEnv } from '../env';
import {
  checkDrift,
  createDevMigration,
  DEFAULT_MIGRATIONS_DIR,
  deployMigrations,
  getEngineVersion,
  migrationStatus,
} from './index';

const USAGE = `Usage: pnpm migrate <command>

Commands:
  dev <name>    apply pending migrations, then write prisma/migrations/<timestamp>_<name>/
                for the changes in prisma/schema.prisma and apply it
  deploy        apply every pending migration (like \`prisma migrate deploy\`)
  status        list applied, pending and failed migrations
  check-drift   exit 1 if prisma/schema.prisma differs from what prisma/migrations builds
  version       print the schema engine version

DATABASE_URL selects the database; when unset, a throwaway embedded PostgreSQL is used.`;

const log = (line: string) => console.log(line);

async function withDatabase<T>(fn: (url: string) => Promise<T>): Promise<T> {
  const { DATABASE_URL } = readDbEnv();
  if (DATABASE_URL) return fn(DATABASE_URL);
  // `status` here would otherwise read as the app's database having nothing applied.
  console.error(
    "migrate: DATABASE_URL is unset: using a throwaway embedded PostgreSQL, not the app's database (`npm start` applies pending migrations itself)",
  );
  const base = await mkdtemp(join(tmpdir(), 'clusterscope-migrate-'));
  const pg = await startEmbeddedPostgres({ dataDir: join(base, 'data'), database: 'migrate' });
  try {
    return await fn(pg.url);
  } finally {
    await pg.stop();
    await rm(base, { recursive: true, force: true });
  }
}

async function run(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    console.log(USAGE);
    return command ? 0 : 2;
  }
  const expectArgs = (n: number, hint: string) => {
    if (args.length !== n) throw new UsageError(`"${command}" expects ${hint}`);
  };
  switch (command) {
    case 'dev': {
      expectArgs(1, 'exactly one argument: the migration name');
      const dir = await withDatabase((url) => createDevMigration(url, args[0]!, { log }));
      console.log(
        dir ? `New migration: ${relative(process.cwd(), dir)}` : 'Already in sync: no new migration.',
      );
      return 0;
    }
    case 'deploy': {
      expectArgs(0, 'no arguments');
      const { applied } = await withDatabase((url) => deployMigrations(url, { log }));
      console.log(applied.length ? `Applied ${applied.length} migration(s).` : 'No pending migrations.');
      return 0;
    }
    case 'status': {
      expectArgs(0, 'no arguments');
      const s = await withDatabase((url) => migrationStatus(url));
      console.log(`Migrations in ${relative(process.cwd(), DEFAULT_MIGRATIONS_DIR)}:`);
      for (const name of s.applied) console.log(`  applied  ${name}`);
      for (const name of s.failed) console.log(`  FAILED   ${name}`);
      for (const name of s.pending) console.log(`  pending  ${name}`);
      if (s.failed.length) return 1;
      return 0;
    }
    case 'check-drift': {
      expectArgs(0, 'no arguments');
      const { drift, summary } = await withDatabase((url) => checkDrift(url));
      (drift ? console.error : console.log)(summary);
      return drift ? 1 : 0;
    }
    case 'version': {
      console.log(await getEngineVersion());
      return 0;
    }
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

class UsageError extends Error {}

run(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof UsageError) {
      console.error(`migrate: ${err.message}\n\n${USAGE}`);
      process.exit(2);
    }
    console.error(`migrate: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
