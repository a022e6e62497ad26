import { describe, expect, it } from 'vitest';
import { bindLiterals, quoteString } from './chdb-bind';

describe('bindLiterals', () => {
  it('binds the project’s parameter types as typed literals', () => {
    expect(
      bindLiterals(
        'SELECT * FROM t WHERE org = {org:String} AND ts >= {from:Int64} AND id IN {ids:Array(String)} LIMIT {n:UInt32}',
        {
          org: 'acme',
          from: 1_700_000_000_000,
          ids: ['a', 'b'],
          n: 10,
        },
      ),
    ).toBe(
      "SELECT * FROM t WHERE org = 'acme' AND ts >= CAST(1700000000000 AS Int64) AND id IN CAST(['a','b'] AS Array(String)) LIMIT CAST(10 AS UInt32)",
    );
    expect(
      bindLiterals('{x:UInt64} {y:Int64} {z:UInt8}', { x: '18446744073709551615', y: -5n, z: 255 }),
    ).toBe('CAST(18446744073709551615 AS UInt64) CAST(-5 AS Int64) CAST(255 AS UInt8)');
    expect(bindLiterals('{e:Array(String)}', { e: [] })).toBe('CAST([] AS Array(String))');
    expect(bindLiterals('{q:Float64} {r:Float64}', { q: 0.99, r: 1e-7 })).toBe(
      'CAST(0.99 AS Float64) CAST(1e-7 AS Float64)',
    );
  });

  it('escapes every character that could end a string literal', () => {
    expect(quoteString("x' OR 1=1 --")).toBe("'x\\' OR 1=1 --'");
    expect(quoteString('a\\')).toBe("'a\\\\'");
    expect(quoteString("\\'")).toBe("'\\\\\\''");
    expect(quoteString('nul\0byte')).toBe("'nul\\0byte'");
    expect(quoteString('$& $1 {x:String}')).toBe("'$& $1 {x:String}'");
    expect(bindLiterals('{a:String} {b:String}', { a: '{b:String}', b: "'" })).toBe("'{b:String}' '\\''");
  });

  it('returns null (chdb binds it) for a value or type it does not bind', () => {
    expect(bindLiterals('{x:String}', { x: 1 })).toBeNull();
    expect(bindLiterals('{x:String}', {})).toBeNull();
    expect(bindLiterals('{x:Int64}', { x: 1.5 })).toBeNull();
    expect(bindLiterals('{x:Int64}', { x: '1; DROP TABLE t' })).toBeNull();
    expect(bindLiterals('{x:UInt8}', { x: 256 })).toBeNull();
    expect(bindLiterals('{x:UInt32}', { x: -1 })).toBeNull();
    expect(bindLiterals('{x:Int64}', { x: 2 ** 60 })).toBeNull(); // not a safe integer
    expect(bindLiterals('{x:Array(String)}', { x: ['a', 1] })).toBeNull();
    expect(bindLiterals('{x:Float64}', { x: NaN })).toBeNull();
    expect(bindLiterals('{x:Float64}', { x: '0.5' })).toBeNull();
    expect(bindLiterals('{x:Float32}', { x: 1 })).toBeNull();
    expect(bindLiterals('{x:DateTime}', { x: '2026-01-01' })).toBeNull();
  });
});
