import { describe, expect, it } from 'vitest';
import { RowBinaryReader, TsvReader } from './util';

describe('TsvReader', () => {
  it('reads typed columns, NULLs, nan and escaped strings row by row', () => {
    const r = new TsvReader('1\ta\\tb\\\\c\t\\N\tnan\t-2.5\n2\t\t3\t-inf\t1e3\n');
    expect([r.num(), r.str(), r.numOrNull(), r.numOrNull(), r.num()]).toEqual([
      1,
      'a\tb\\c',
      null,
      null,
      -2.5,
    ]);
    r.endRow();
    expect(r.done).toBe(false);
    expect([r.num(), r.str(), r.num(), r.numOrNull()]).toEqual([2, '', 3, -Infinity]);
    r.skip();
    r.endRow();
    expect(r.done).toBe(true);
  });
  it('names the row and column of bad input', () => {
    const bad = new TsvReader('1\tx\n');
    bad.num();
    expect(() => bad.num()).toThrow(/row 1, column 2: expected a number, got "x"/);
    const nul = new TsvReader('\\N\n');
    expect(() => nul.num()).toThrow(/row 1, column 1: expected a number, got NULL/);
    const extra = new TsvReader('1\t2\n');
    extra.num();
    expect(() => extra.endRow()).toThrow(/more columns than expected/);
    const short = new TsvReader('');
    expect(() => short.num()).toThrow(/missing column/);
  });
});

describe('RowBinaryReader', () => {
  it('reads UInt8, Float64, Nullable(Float64) and String, and names where data ends early', () => {
    const f = (x: number) => {
      const b = Buffer.alloc(8);
      b.writeDoubleLE(x);
      return b;
    };
    const long = 'é'.repeat(100); // 200 bytes: a two-byte length
    const buf = Buffer.concat([
      Buffer.from([1]), f(2.5), Buffer.from([1]), Buffer.from([0]), f(-3),
      Buffer.from([200, 1]), Buffer.from(long), Buffer.from([0]),
    ]); // prettier-ignore
    const r = new RowBinaryReader(buf);
    expect([r.u8(), r.f64(), r.f64OrNull(), r.f64OrNull(), r.str(), r.str()]).toEqual([
      1,
      2.5,
      null,
      -3,
      long,
      '',
    ]);
    expect(r.done).toBe(true);
    expect(() => new RowBinaryReader(Buffer.from([0, 1, 2])).f64()).toThrow(
      /data ends at byte 3, needed 8 more at 0/,
    );
  });
});
