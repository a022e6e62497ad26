import { describe, expect, it } from 'vitest';
import { TsvReader } from './util';

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
