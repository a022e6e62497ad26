import fc from 'fast-check';
import { ZParseResult, type TFormat, FORMATS } from '@clusterscope/schema';
import { describe, expect, it } from 'vitest';
import { ParseError } from '../errors';
import { readFixture } from './fixture.test-helper';
import { parseCockroachWorkload } from './cockroach';
import { parseFio } from './fio';
import { parseHey } from './hey';
import { detectTool, parseOutput } from './parse-output';
import { parsePgbench } from './pgbench';
import { parseSysbench } from './sysbench';
import { parseWrk } from './wrk';

// The raw parsers, without parseOutput's safety net that turns any other error into a ParseError.
const RAW_PARSERS = [parseSysbench, parseCockroachWorkload, parsePgbench, parseFio, parseWrk, parseHey];

const FIXTURES: [string, TFormat, boolean][] = [
  ['cockroach_workload_bank.txt', 'cockroach-workload', false],
  ['cockroach_workload_tpcc.txt', 'cockroach-workload', false],
  ['cockroach_workload_tpcc_short.txt', 'cockroach-workload', false],
  ['cockroach_workload_ycsb.txt', 'cockroach-workload', false],
  ['sysbench_oltp_write_only_pgsql.txt', 'sysbench', false],
  ['sysbench_oltp_write_only_pgsql_local.txt', 'sysbench', false],
  ['sysbench_oltp_read_only_pgsql.txt', 'sysbench', false],
  ['sysbench_cpu.txt', 'sysbench', false],
  ['sysbench_memory.txt', 'sysbench', false],
  ['sysbench_fileio.txt', 'sysbench', false],
  ['pgbench_tpcb.txt', 'pgbench', false],
  ['pgbench_select_only.txt', 'pgbench', false],
  ['fio_randrw.json', 'fio', false],
  ['fio_randrw.txt', 'fio', false],
  ['fio_seqread.txt', 'fio', false],
  ['wrk_latency.txt', 'wrk', false],
  ['wrk_plain.txt', 'wrk', false],
  ['hey.txt', 'hey', false],
  ['truncated_sysbench_oltp_read_only.txt', 'sysbench', true],
  ['truncated_pgbench_tpcb.txt', 'pgbench', true],
  ['truncated_cockroach_workload_bank.txt', 'cockroach-workload', true],
  ['truncated_fio_randrw.json', 'fio', true],
  ['truncated_fio_randrw.txt', 'fio', true],
  ['truncated_wrk_latency.txt', 'wrk', true],
  ['truncated_hey.txt', 'hey', true],
];

function expectOnlyParseErrors(text: string, tool: TFormat | undefined): void {
  expectOnlyParseError(() => parseOutput(text, tool));
  for (const parse of RAW_PARSERS) expectOnlyParseError(() => parse(text));
}

function expectOnlyParseError(fn: () => unknown): void {
  try {
    const r = fn();
    expect(ZParseResult.safeParse(r).success).toBe(true);
  } catch (err) {
    if (!(err instanceof ParseError)) throw err;
    expect(err.recognised.length).toBeGreaterThan(0);
  }
}

describe('detectTool and parseOutput', () => {
  it.each(FIXTURES)('%s is %s (incomplete=%s)', (file, tool, incomplete) => {
    const text = readFixture(file);
    expect(detectTool(text)).toBe(tool);
    const r = parseOutput(text);
    expect(r.tool).toBe(tool);
    expect(r.incomplete).toBe(incomplete);
    expect(r.warnings.some((w) => w.startsWith('incomplete'))).toBe(incomplete);
    expect(r.summary.length + r.samples.length).toBeGreaterThan(0);
    for (const m of r.summary) {
      expect(m.unit, m.name).not.toBe('');
      expect(Number.isFinite(m.value)).toBe(true);
    }
    expect(parseOutput(text, tool)).toEqual(r);
  });

  it('gives a typed error naming what was recognised', () => {
    const empty = (() => {
      try {
        parseOutput('  \n');
      } catch (e) {
        return e;
      }
    })();
    expect(empty).toBeInstanceOf(ParseError);
    expect((empty as ParseError).recognised).toMatch(/empty/);
    expect(() => parseOutput('hello world\nfoo')).toThrow(ParseError);
    try {
      parseOutput('hello world\nfoo');
    } catch (e) {
      expect((e as ParseError).recognised).toMatch(/no known tool.*first line: "hello world"/);
      expect((e as ParseError).tool).toBeNull();
    }
  });

  it('says when the output does not match the given tool', () => {
    try {
      parseOutput(readFixture('wrk_latency.txt'), 'pgbench');
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ParseError);
      expect((e as ParseError).tool).toBe('pgbench');
      expect((e as ParseError).message).toMatch(/looks like wrk/);
    }
  });

  it('rejects a banner without results', () => {
    expect(() => parseOutput('sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)\n')).toThrow(ParseError);
    expect(() => parseOutput('{"fio version": "fio-3.33", "jobs": []}')).toThrow(ParseError);
  });

  it('parsers return a result or throw ParseError for random text (property)', () => {
    const tool = fc.option(fc.constantFrom(...FORMATS), { nil: undefined });
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), tool, (s, t) => {
        expectOnlyParseErrors(s, t);
      }),
      { numRuns: 2000, seed: 42 },
    );
  }, 60_000);

  it('parsers return a result or throw ParseError for mutated fixtures (property)', () => {
    const texts = FIXTURES.map(([f]) => readFixture(f));
    const noise = fc.constantFrom(
      '',
      ' ',
      '\n',
      'NaN',
      '1e999',
      '-',
      '%',
      '[ 1s ]',
      '_elapsed__',
      ':',
      '{',
      '}',
      '"',
      '999999999999999999999',
    );
    const mutated = fc
      .tuple(fc.nat(texts.length - 1), fc.array(fc.tuple(fc.nat(), fc.nat(40), noise), { maxLength: 12 }))
      .map(([i, edits]) => {
        let s = texts[i];
        for (const [at, del, ins] of edits) {
          const p = s.length ? at % s.length : 0;
          s = s.slice(0, p) + ins + s.slice(p + del);
        }
        return s;
      });
    fc.assert(
      fc.property(mutated, fc.option(fc.constantFrom(...FORMATS), { nil: undefined }), (s, t) => {
        expectOnlyParseErrors(s, t);
      }),
      { numRuns: 1500, seed: 7 },
    );
  }, 60_000);

  it('rejects non-string input with ParseError', () => {
    expect(() => parseOutput(42 as unknown as string)).toThrow(ParseError);
    expect(detectTool(undefined as unknown as string)).toBeNull();
  });
});
