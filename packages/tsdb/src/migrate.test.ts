import { describe, expect, it } from 'vitest';
import { listMigrations, renderMigration, splitStatements } from './migrate';

const SQL = `CREATE TABLE t {{ON_CLUSTER}} (a UInt8, ts DateTime)
ENGINE = {{ENGINE:ReplacingMergeTree(ts)}} ORDER BY a;
CREATE TABLE u {{ON_CLUSTER}} (a UInt8) ENGINE = {{ENGINE:MergeTree()}} ORDER BY a;`;

describe('renderMigration', () => {
  it('renders plain engines without a cluster', () => {
    const out = renderMigration(SQL);
    expect(out).toContain('CREATE TABLE t  (a UInt8');
    expect(out).toContain('ENGINE = ReplacingMergeTree(ts) ORDER BY a');
    expect(out).toContain('ENGINE = MergeTree() ORDER BY a');
    expect(out).not.toMatch(/ON CLUSTER|Replicated|\{\{/);
  });

  it('renders ON CLUSTER and Replicated engines with a cluster', () => {
    const out = renderMigration(SQL, { cluster: 'prod_cluster' });
    expect(out).toContain("CREATE TABLE t ON CLUSTER 'prod_cluster' (a UInt8");
    expect(out).toContain(
      "ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/{table}', '{replica}', ts)",
    );
    expect(out).toContain(
      "ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/{database}/{table}', '{replica}') ORDER BY a",
    );
  });

  it('rejects unknown placeholders and unsafe cluster names', () => {
    expect(() => renderMigration('CREATE TABLE x {{ON_CLUSTR}}')).toThrow(
      /unknown migration placeholder \{\{ON_CLUSTR\}\}/,
    );
    expect(() => renderMigration(SQL, { cluster: "x'; DROP" })).toThrow(/CLICKHOUSE_CLUSTER/);
  });

  it('renders every shipped migration in both modes without leftovers', () => {
    for (const m of listMigrations()) {
      for (const cluster of [undefined, 'c1']) {
        const out = renderMigration(m.sql, { cluster });
        expect(out).not.toContain('{{');
        expect(out.includes("ON CLUSTER 'c1'")).toBe(cluster !== undefined);
      }
    }
  });
});

describe('splitStatements', () => {
  it('splits at semicolons ending a line and drops comment lines', () => {
    const parts = splitStatements("-- head; comment\nSELECT 'a;b';\n\nSELECT 2;  \nSELECT 3");
    expect(parts).toEqual(["SELECT 'a;b'", 'SELECT 2', 'SELECT 3']);
  });
});

describe('listMigrations', () => {
  it('lists numbered files in order with sha256 checksums', () => {
    const ms = listMigrations();
    expect(ms.length).toBeGreaterThanOrEqual(4);
    expect(ms.map((m) => m.version)).toEqual([...ms.map((m) => m.version)].sort((a, b) => a - b));
    for (const m of ms) expect(m.checksum).toMatch(/^[0-9a-f]{64}$/);
    expect(ms[0].file).toBe('0001_raw_tables.up.sql');
  });
});
