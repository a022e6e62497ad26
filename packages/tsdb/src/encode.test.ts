import type { TSample } from '@clusterscope/schema';
import { describe, expect, it } from 'vitest';
import { encodeSamplesToBytes, escapeTsv, formatTs, INGEST_COLUMNS, quoteString } from './encode';

const text = (b: Uint8Array | undefined) => Buffer.from(b ?? []).toString('utf8');

describe('escaping', () => {
  it('escapes TabSeparated specials so a field never contains a raw tab or newline', () => {
    expect(escapeTsv('a\tb\nc\\d\re\0f')).toBe('a\\tb\\nc\\\\d\\re\\0f');
    expect(escapeTsv("plain 'quote'")).toBe("plain 'quote'");
  });
  it('quotes array strings', () => {
    expect(quoteString("it's\t\\")).toBe("'it\\'s\\t\\\\'");
  });
  it('formats epoch ms exactly', () => {
    expect(formatTs(1700000000005)).toBe('1700000000.005');
    expect(formatTs(1700000000050)).toBe('1700000000.050');
    expect(formatTs(1700000000999)).toBe('1700000000.999');
    expect(() => formatTs(1.5)).toThrow(/ts must be epoch milliseconds/);
  });
});

describe('encodeSamplesToBytes', () => {
  it('emits one line per row with as many fields as columns', () => {
    const samples: TSample[] = [
      { kind: 'bench_sample', ts: 1000, run_id: 'r1', elapsed_s: 1, values: { tps: 10, 'lat\tp95': 2 } },
      {
        kind: 'heartbeat', ts: 1000, host: 'h\n1', version: '1', uptime_s: 5, capabilities: ['a', "b'c"],
        outbox_bytes: 0, outbox_pending: 0, outbox_evictions: 0, metrics_dropped: 0,
      }, // prettier-ignore
    ];
    const e = encodeSamplesToBytes('org', null, samples, { agent: 'ag' });
    expect(e.rows).toBe(3);
    expect(Object.keys(e.bodies).sort()).toEqual(['bench_samples', 'heartbeats']);
    const lines = text(e.bodies.bench_samples).split('\n').filter(Boolean);
    expect(lines).toHaveLength(2);
    for (const l of lines) expect(l.split('\t')).toHaveLength(INGEST_COLUMNS.bench_samples.length);
    expect(lines[1]).toContain('lat\\tp95');
    expect(text(e.bodies.heartbeats).split('\n').filter(Boolean)).toHaveLength(1);
    const hb = text(e.bodies.heartbeats).trimEnd().split('\t');
    expect(hb).toHaveLength(INGEST_COLUMNS.heartbeats.length);
    expect(hb[3]).toBe('h\\n1');
    expect(hb[7]).toBe("['a','b\\'c']");
  });

  it('names the sample and field of a bad value', () => {
    const bad = [
      { kind: 'bench_sample', ts: 1000, run_id: 'r', elapsed_s: 1, values: { tps: 1 } },
      { kind: 'bench_sample', ts: 1000, run_id: 'r', elapsed_s: 1, values: { tps: Number.NaN } },
    ] as TSample[];
    expect(() => encodeSamplesToBytes('org', 'c', bad)).toThrow(
      /samples\[1\] \(bench_sample\): values\.tps must be a finite number/,
    );
    const neg = [{ kind: 'heartbeat', ts: -1, host: 'h', version: '1', uptime_s: 1 }] as TSample[];
    expect(() => encodeSamplesToBytes('org', 'c', neg)).toThrow(
      /samples\[0\] \(heartbeat\): ts must be epoch/,
    );
    expect(() => encodeSamplesToBytes('org', 'c', [{ kind: 'nope' } as unknown as TSample])).toThrow(
      /unknown kind "nope"/,
    );
  });
});
