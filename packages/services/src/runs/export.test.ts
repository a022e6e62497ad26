import { describe, expect, it } from 'vitest';
import { toCsv } from './export';

describe('CSV exports defuse what a spreadsheet would run as a formula', () => {
  it.each(['=1+1', '+1', '-1+1', '@SUM(A1)', '\t=1+1', '\r=1+1', '\n=1+1'])(
    '%j gets a leading quote',
    (v) => {
      const cell = toCsv([], [[v]]).replace(/\r\n$/, '');
      expect(cell.replace(/^"/, '')).toMatch(/^'/);
    },
  );

  it('leaves ordinary text alone', () => {
    expect(toCsv(['branch'], [['main']])).toBe('branch\r\nmain\r\n');
  });
});
