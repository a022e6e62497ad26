import { describe, expect, it } from 'vitest';
import { parseFio } from './fio';
import { expectMetrics, metricOf, readFixture } from './fixture.test-helper';

describe('parseFio', () => {
  it('reads --output-format=json', () => {
    const r = parseFio(readFixture('fio_randrw.json'));
    expect(r.workload).toBe('randrw');
    expect(r.incomplete).toBe(false);
    expectMetrics(r, {
      read_iops: expect.closeTo(13629.444998, 6),
      write_iops: expect.closeTo(13595.87903, 6),
      read_bw_kib_s: 54517,
      write_bw_kib_s: 54383,
      read_lat_avg_ms: expect.closeTo(0.063618119, 6),
      read_lat_p99_ms: expect.closeTo(0.109056, 6),
      write_lat_max_ms: expect.closeTo(0.169952, 9),
    });
    expect(r.summary.find((m) => m.name === 'read_iops')?.direction).toBe('higher');
    expect(r.summary.find((m) => m.name === 'read_lat_p99_ms')?.direction).toBe('lower');
  });

  it('reads the normal text report', () => {
    const r = parseFio(readFixture('fio_randrw.txt'));
    expect(r.workload).toBe('randrw');
    expectMetrics(r, {
      read_iops: expect.closeTo(26493 / 2.001, 6),
      write_iops: expect.closeTo(26482 / 2.001, 6),
      read_bw_kib_s: expect.closeTo(51.7 * 1024, 6),
      read_lat_avg_ms: expect.closeTo(0.06608158, 8),
      read_lat_p95_ms: expect.closeTo(0.08, 9),
      write_lat_p99_ms: expect.closeTo(0.006816, 9),
    });
    const seq = parseFio(readFixture('fio_seqread.txt'));
    expect(seq.workload).toBe('read');
    expectMetrics(seq, {
      read_bw_kib_s: expect.closeTo(1509 * 1024, 6),
      read_lat_max_ms: expect.closeTo(8.684, 9),
    });
    expect(seq.summary.some((m) => m.name.startsWith('write_'))).toBe(false);
  });

  it('flags cut JSON and text, keeping what is there', () => {
    const json = parseFio(readFixture('truncated_fio_randrw.json'));
    expect(json.incomplete).toBe(true);
    expectMetrics(json, {
      read_bw_kib_s: 54517,
      write_bw_kib_s: 54383,
    });
    const text = parseFio(readFixture('truncated_fio_randrw.txt'));
    expect(text.incomplete).toBe(true);
    expect(metricOf(text, 'read_iops')).toBe(13200);
  });
});

describe('parseFio on failed and interrupted runs (fixtures/failed, SOURCES.md)', () => {
  it('a job that ended with an I/O error (err= 5) fails the run with fio’s io_u error line', () => {
    const r = parseFio(readFixture('failed/fio-zns-write-io-error.txt'));
    expect(r.error).toBe(
      'fio: io_u error on file /dev/nullb0: Input/output error: write offset=335544320, buflen=262144',
    );
    expect(r.warnings[0]).toMatch(/^zns-fio-seq: \(groupid=0, jobs=1\): err= 5 \(file:io_u.c:1787/);
    expect(r.workload).toBe('write');
    // What the job did before the error is kept for the record; the error marks the run failed.
    expectMetrics(r, { write_iops: expect.closeTo((1282 * 1000) / 183, 6) });
  });

  it('JSON with "error" : 28 and no I/O done is a failed run without metrics, not a parse error', () => {
    const r = parseFio(readFixture('failed/fio-enospc.json'));
    expect(r.error).toBe(
      'fio: io_u error on file /dev/full: No space left on device: write offset=0, buflen=4096',
    );
    expect(r.warnings).toContain('job full: error 28');
    expect(r.summary).toEqual([]);
    // Without the stderr lines the job's error code is the reason.
    const json = readFixture('failed/fio-enospc.json');
    const only = parseFio(json.slice(json.indexOf('{')));
    expect(only.error).toBe('job full: error 28');
  });

  it('a run stopped by SIGINT says it is incomplete, and keeps what fio reported', () => {
    const r = parseFio(readFixture('failed/fio-sigint.txt'));
    expect(r.incomplete).toBe(true);
    expect(r.warnings).toContain(
      'incomplete: terminating on signal 2: the jobs stopped before their runtime or size',
    );
    expect(r.error).toBeUndefined();
    expectMetrics(r, { read_iops: expect.closeTo((11600 * 1000) / 2131, 6) });
  });

  it('a job killed by a signal or one that never started fails the run', () => {
    expect(parseFio('fio-3.1\nStarting 1 thread\nfio: 1 job failed to start\n').error).toBe(
      'fio: 1 job failed to start',
    );
    const killed = parseFio(
      [
        'fio: pid=1205, got signal=9',
        'fio_test: (groupid=0, jobs=1): err= 0: pid=1205: Thu Sep 22 10:00:00 2016',
        '  write: IOPS=100, BW=100MiB/s (105MB/s)(1000MiB/10000msec)',
        'Run status group 0 (all jobs):',
      ].join('\n'),
    );
    expect(killed.error).toBe('fio: pid=1205, got signal=9');
  });
});
