import { describe, expect, it } from 'vitest';
import { RowBinaryReader } from './util';

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
