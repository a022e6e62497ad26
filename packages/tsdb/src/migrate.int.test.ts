import { appendFileSync, cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INGEST_COLUMNS, INGEST_TABLES, TABLE_COLUMNS, type TColumnKind } from './encode';
import { listMigrations, migrate, MIGRATIONS_DIR } from './migrate';
import { openTempClickHouse } from './testing';
import type { TTsdb } from './client';

let ch: TTsdb;
let cleanup: () => Promise<void>;
const dirs: string[] = [];

/** A copy of the shipped migrations plus extra files. */
function copyMigrations(extra: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'tsdb-migrations-'));
  dirs.push(dir);
  cpSync(MIGRATIONS_DIR, dir, { recursive: true });
  for (const [name, sql] of Object.entries(extra)) writeFileSync(join(dir, name), sql);
  return dir;
}

async function rows<T>(query: string): Promise<T[]> {
  return (await ch.client.query({ query, format: 'JSONEachRow' })).json<T>();
}

beforeAll(async () => {
  ({ ch, cleanup } = await openTempClickHouse());
});
afterAll(async () => {
  await cleanup();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('migrate', () => {
  it('applied every migration once and recorded it with its checksum', async () => {
    const recorded = await rows<{ version: number; name: string; checksum: string }>(
      'SELECT version, name, checksum FROM schema_migrations FINAL ORDER BY version',
    );
    const files = listMigrations();
    expect(recorded.map((r) => [Number(r.version), r.name, r.checksum])).toEqual(
      files.map((f) => [f.version, f.name, f.checksum]),
    );
    const tables = (
      await rows<{ name: string }>('SELECT name FROM system.tables WHERE database = currentDatabase()')
    ).map((r) => r.name);
    for (const t of [
      'node_status',
      'cgroup_usage',
      'host_metrics',
      'heartbeats',
      'bench_samples',
      'bench_results',
      'ingest_batches',
      'node_latest',
      'node_latest_mv',
      'node_status_1m',
      'node_status_1h',
      'node_status_1m_mv',
      'node_status_1h_mv',
      'cgroup_usage_1m',
      'cgroup_usage_1h',
      'cgroup_usage_1m_mv',
      'cgroup_usage_1h_mv',
    ]) {
      // prettier-ignore
      expect(tables).toContain(t);
    }
  });

  it('is idempotent', async () => {
    const again = await migrate(ch);
    expect(again.applied).toEqual([]);
    expect(again.skipped).toHaveLength(listMigrations().length);
    const [{ n }] = await rows<{ n: number }>('SELECT count() AS n FROM schema_migrations');
    expect(Number(n)).toBe(listMigrations().length);
  });

  it('wide raw tables merge with 64 KiB compression buffers (0009), vertically (0010)', async () => {
    const defs = await rows<{ name: string; engine_full: string; cols: number }>(
      `SELECT t.name AS name, t.engine_full AS engine_full, count() AS cols
       FROM system.tables t JOIN system.columns c ON c.database = t.database AND c.table = t.name
       WHERE t.database = currentDatabase()
       GROUP BY t.name, t.engine_full`,
    );
    const raw: readonly string[] = INGEST_TABLES;
    const wide = defs.filter((d) => raw.includes(d.name) && Number(d.cols) > 10);
    expect(wide.map((d) => d.name)).toEqual(expect.arrayContaining(['node_status', 'cgroup_usage']));
    for (const d of wide) expect(d.engine_full, d.name).toMatch(/max_compress_block_size = 65536/);
    // Vertical needs 11 non-key columns; the narrower raw tables stay horizontal.
    const vertical = wide.filter((d) =>
      /vertical_merge_algorithm_min_rows_to_activate = 1\b/.test(d.engine_full),
    );
    expect(vertical.map((d) => d.name).sort()).toEqual(['cgroup_usage', 'host_metrics', 'node_status']);
  });

  it('a merge into a wide cgroup_usage part runs vertically (0010)', async () => {
    // A day part of ~100k rows (wide: over 10 MiB) and a small one: under 131,072 rows, so
    // ClickHouse's default would merge them horizontally (54 MiB against 7.5 MiB vertically).
    const insert = (n: number, ago: number) =>
      ch.client.command({
        query: `INSERT INTO cgroup_usage (org_id, cluster_id, host, node_id, cgroup, ts, version,
                  cpu_usage_usec, mem_current, io_device, io_rbytes, io_wbytes, psi_io_full_total)
                SELECT 'merge-org', 'c' || toString(number % 10), 'h' || toString(number % 500), number % 500,
                  'cg' || toString(number % 3), now64(3) - toIntervalSecond(${ago} + intDiv(number, 1500)), 2,
                  rand64(), rand64(), ['sda', 'sdb'], [rand64(), rand64()], [rand64(), rand64()], rand64()
                FROM numbers(${n})`,
      });
    await insert(97_000, 0);
    const seen = new Set<string>();
    try {
      // The merge takes ~0.1 s; poll system.merges while OPTIMIZE runs until one is seen.
      for (let i = 0; i < 5 && seen.size === 0; i++) {
        await insert(1_500, 200 + i);
        let done = false;
        const optimize = ch.client
          .command({ query: 'OPTIMIZE TABLE cgroup_usage' })
          .finally(() => (done = true));
        while (!done) {
          const m = await rows<{ a: string }>(
            `SELECT merge_algorithm AS a FROM system.merges WHERE database = currentDatabase() AND table = 'cgroup_usage'`,
          );
          for (const r of m) if (r.a !== 'Undecided') seen.add(r.a); // before the merge chooses
        }
        await optimize;
      }
      expect([...seen]).toEqual(['Vertical']);
      const [{ n }] = await rows<{ n: string }>(
        `SELECT count() AS n FROM cgroup_usage WHERE org_id = 'merge-org'`,
      );
      expect(Number(n)).toBeGreaterThanOrEqual(98_500);
    } finally {
      await ch.client.command({ query: 'TRUNCATE TABLE cgroup_usage' });
    }
  });

  it('every table orders by org_id first and has a TTL', async () => {
    const defs = await rows<{ name: string; sorting_key: string; engine_full: string }>(
      `SELECT name, sorting_key, engine_full FROM system.tables
       WHERE database = currentDatabase() AND engine LIKE '%MergeTree' AND name != 'schema_migrations'`,
    );
    expect(defs.length).toBeGreaterThanOrEqual(12);
    for (const d of defs) {
      expect(d.sorting_key, d.name).toMatch(/^org_id,/);
      expect(d.engine_full, d.name).toMatch(/TTL /);
    }
  });

  it('refuses an applied file whose content changed', async () => {
    const dir = copyMigrations();
    appendFileSync(join(dir, '0002_node_latest.up.sql'), '\n-- edited\n');
    await expect(migrate(ch, { dir })).rejects.toThrow(
      /0002_node_latest\.up\.sql changed after it was applied/,
    );
  });

  it('names the file and statement of a failing migration and does not record it', async () => {
    const dir = copyMigrations({
      '0099_broken.up.sql':
        'CREATE TABLE IF NOT EXISTS ok_tbl (org_id String) ENGINE = MergeTree ORDER BY org_id;\nSELECT nope FROM missing_table;\n',
    });
    await expect(migrate(ch, { dir })).rejects.toThrow(
      /ClickHouse migration 0099_broken\.up\.sql failed at statement 2/,
    );
    const rec = await rows<{ n: number }>('SELECT count() AS n FROM schema_migrations WHERE version = 99');
    expect(Number(rec[0].n)).toBe(0);
  });

  it('rejects mutations and badly named files', async () => {
    const mut = copyMigrations({ '0098_mut.up.sql': 'ALTER TABLE node_status DELETE WHERE 1;\n' });
    await expect(migrate(ch, { dir: mut })).rejects.toThrow(/0098_mut\.up\.sql statement 1 is a mutation/);
    const badName = copyMigrations({ 'fix.sql': 'SELECT 1;' });
    await expect(migrate(ch, { dir: badName })).rejects.toThrow(/fix\.sql must look like NNNN_name\.up\.sql/);
  });
});

/** The ClickHouse types each column kind of TABLE_COLUMNS may be written to. */
const KIND_TYPES: Record<TColumnKind, RegExp> = {
  string: /^(LowCardinality\()?String\)?$/,
  uint: /^UInt(8|16|32|64)$/,
  nuint: /^Nullable\(UInt(8|16|32|64)\)$/,
  float: /^Float(32|64)$/,
  nfloat: /^Nullable\(Float(32|64)\)$/,
  bool: /^Bool$/,
  ts: /^DateTime64\(3, 'UTC'\)$/,
  nts: /^Nullable\(DateTime64\(3, 'UTC'\)\)$/,
  raw: /^(Array|Map)\(/,
};

describe('column descriptions', () => {
  it('name every column of each raw table, in a kind that matches its ClickHouse type', async () => {
    for (const table of INGEST_TABLES) {
      const described = await rows<{ name: string; type: string; default_type: string }>(
        `SELECT name, type, default_kind AS default_type FROM system.columns
         WHERE database = currentDatabase() AND table = '${table}' ORDER BY position`,
      );
      // Every column without a default is written by the encoder (others may be left to ClickHouse).
      const required = described.filter((c) => c.default_type === '').map((c) => c.name);
      expect(INGEST_COLUMNS[table].filter((c) => required.includes(c)).sort()).toEqual(required.sort());
      const types = new Map(described.map((c) => [c.name, c.type]));
      for (const c of TABLE_COLUMNS[table]) {
        expect({ table, column: c.name, type: types.get(c.name) ?? 'missing' }).toEqual({
          table,
          column: c.name,
          type: expect.stringMatching(KIND_TYPES[c.kind]),
        });
      }
    }
  });
});
