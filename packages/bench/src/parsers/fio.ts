import type { TParseResult } from '@clusterscope/schema';
import { ResultBuilder, splitLines, toNumber } from './result-builder';

type TDir = 'read' | 'write' | 'trim';
/** One job's numbers for one IO direction; latencies in ms. */
type TJobDir = {
  iops: number;
  bw_kib_s: number;
  lat_avg_ms: number | null;
  lat_max_ms: number | null;
  pct: Record<string, number>;
};

const DIRS: TDir[] = ['read', 'write', 'trim'];
const PCTS: Record<string, string> = { '50': 'p50', '90': 'p90', '95': 'p95', '99': 'p99', '99.9': 'p999' };
const TIME_TO_MS: Record<string, number> = { nsec: 1e-6, usec: 1e-3, msec: 1 };

function pctKey(pct: string): string | null {
  return PCTS[String(Number(pct))] ?? null;
}

/** Adds every job's numbers, per direction: IOPS and bandwidth summed, latency IOPS-weighted avg, worst max and percentiles. */
function emit(b: ResultBuilder, jobs: Partial<Record<TDir, TJobDir>>[]): void {
  if (jobs.length > 1)
    b.warnings.push(
      `${jobs.length} jobs: IOPS and bandwidth are summed; latency percentiles are the worst job's`,
    );
  for (const dir of DIRS) {
    const parts = jobs.map((j) => j[dir]).filter((d): d is TJobDir => d !== undefined && d.iops > 0);
    if (parts.length === 0) continue;
    const iops = parts.reduce((s, d) => s + d.iops, 0);
    b.metric(`${dir}_iops`, iops, 'IO/s');
    b.metric(
      `${dir}_bw_kib_s`,
      parts.reduce((s, d) => s + d.bw_kib_s, 0),
      'KiB/s',
    );
    const withAvg = parts.filter((d) => d.lat_avg_ms !== null);
    if (withAvg.length) {
      const w = withAvg.reduce((s, d) => s + d.iops, 0);
      b.metric(`${dir}_lat_avg_ms`, withAvg.reduce((s, d) => s + (d.lat_avg_ms ?? 0) * d.iops, 0) / w, 'ms');
    }
    const maxes = parts.map((d) => d.lat_max_ms).filter((x): x is number => x !== null);
    if (maxes.length) b.metric(`${dir}_lat_max_ms`, Math.max(...maxes), 'ms');
    for (const p of Object.values(PCTS)) {
      const vals = parts.map((d) => d.pct[p]).filter((x) => x !== undefined);
      if (vals.length) b.metric(`${dir}_lat_${p}_ms`, Math.max(...vals), 'ms');
    }
  }
}

type TJsonStat = { min?: number; max?: number; mean?: number; percentile?: Record<string, number> };
type TJsonDir = {
  iops?: number;
  bw?: number;
  total_ios?: number;
  lat_ns?: TJsonStat;
  clat_ns?: TJsonStat;
  lat?: TJsonStat;
  clat?: TJsonStat;
};
type TJsonJob = { jobname?: string; error?: number; 'job options'?: Record<string, string> } & Partial<
  Record<TDir, TJsonDir>
>;

function fromJsonDir(d: TJsonDir | undefined): TJobDir | undefined {
  if (!d || typeof d !== 'object' || typeof d.iops !== 'number' || typeof d.bw !== 'number') return undefined;
  const ns = d.lat_ns ?? null;
  const scale = ns ? 1e-6 : 1e-3; // fio 2.x reports "lat"/"clat" in µs.
  const lat = ns ?? d.lat;
  const clat = d.clat_ns ?? d.clat;
  const pct: Record<string, number> = {};
  for (const [k, v] of Object.entries(clat?.percentile ?? {})) {
    const key = pctKey(k);
    if (key && typeof v === 'number') pct[key] = v * scale;
  }
  const num = (x: unknown) => (typeof x === 'number' ? x * scale : null);
  return { iops: d.iops, bw_kib_s: d.bw, lat_avg_ms: num(lat?.mean), lat_max_ms: num(lat?.max), pct };
}

function parseJson(b: ResultBuilder, text: string, global: Record<string, string>, notes: TFioNotes): void {
  const doc = JSON.parse(text) as { jobs?: TJsonJob[]; 'global options'?: Record<string, string> };
  if (!doc || !Array.isArray(doc.jobs)) throw new Error('no "jobs" array');
  Object.assign(global, doc['global options'] ?? {});
  const rw = new Set<string>();
  const jobs = doc.jobs.map((job) => {
    const mode = job['job options']?.rw ?? global.rw;
    if (typeof mode === 'string') rw.add(mode);
    else if (job.jobname) rw.add(String(job.jobname));
    if (job.error) {
      const what = `job ${job.jobname ?? '?'}: error ${job.error}`;
      b.warnings.push(what);
      notes.failure ??= what;
    }
    return { read: fromJsonDir(job.read), write: fromJsonDir(job.write), trim: fromJsonDir(job.trim) };
  });
  b.workload = [...rw].join('+');
  emit(b, jobs);
}

/** Salvages IOPS and bandwidth from a cut JSON document. */
function parsePartialJson(b: ResultBuilder, text: string): void {
  const job: Partial<Record<TDir, TJobDir>> = {};
  for (const dir of DIRS) {
    const start = text.indexOf(`"${dir}" : {`);
    if (start === -1) continue;
    const ends = DIRS.map((d) => text.indexOf(`"${d}" : {`, start + 1)).filter((i) => i > start);
    const chunk = text.slice(start, ends.length ? Math.min(...ends) : undefined);
    const iops = toNumber(/"iops" : ([\d.]+)/.exec(chunk)?.[1]);
    const bw = toNumber(/"bw" : ([\d.]+)/.exec(chunk)?.[1]);
    if (iops !== null && bw !== null)
      job[dir] = { iops, bw_kib_s: bw, lat_avg_ms: null, lat_max_ms: null, pct: {} };
  }
  b.workload = /"rw" : "([\w]+)"/.exec(text)?.[1] ?? '';
  emit(b, [job]);
}

/** What fio's own `fio: …` lines and the jobs' error codes say: the first I/O error, a failed job, a signal. */
type TFioNotes = { ioError?: string; failure?: string; signal?: string };

function readNote(notes: TFioNotes, line: string): void {
  if (line.startsWith('fio: io_u error')) notes.ioError ??= line;
  // A job that ended with an error (`fio: pid=1, err=5/…`), was killed (`got signal=9`) or never started.
  else if (/^fio: (?:pid=\d+, (?:err=[1-9]|got signal=)|\d+ jobs? failed)/.test(line)) notes.failure ??= line;
  else if (line.startsWith('fio: terminating on signal')) notes.signal ??= line;
}

/** A failed job fails the run, with fio's first I/O error as the reason; a signal cuts the jobs short. */
function applyNotes(b: ResultBuilder, notes: TFioNotes): void {
  if (notes.failure) b.error = (notes.ioError ?? notes.failure).slice(0, 300);
  if (notes.signal)
    b.markIncomplete(`${notes.signal.slice(5, 80)}: the jobs stopped before their runtime or size`);
}

const BW_TO_KIB: Record<string, number> = {
  B: 1 / 1024,
  KiB: 1,
  MiB: 1024,
  GiB: 1024 ** 2,
  kB: 1000 / 1024,
  MB: 1e6 / 1024,
  GB: 1e9 / 1024,
};
const SI: Record<string, number> = { '': 1, k: 1e3, M: 1e6, G: 1e9 };

function parseText(b: ResultBuilder, output: string, notes: TFioNotes): void {
  const jobs: Partial<Record<TDir, TJobDir>>[] = [];
  const rw = new Set<string>();
  let dir: TJobDir | null = null;
  let pctScale = 0;
  const runtimes: Partial<Record<TDir, number | null>> = {};
  for (const raw of splitLines(output)) {
    const line = raw.trimEnd();
    if (line.startsWith('fio: ')) {
      readNote(notes, line);
      continue;
    }
    // Unindented lines read below are the job lines (`name: (g=0): …`, `name: (groupid=0, …`).
    if (line === '' || (line[0] !== ' ' && line[0] !== '\t' && !line.includes(': ('))) continue;
    let m: RegExpExecArray | null;
    if ((m = /^\S+: \(g=\d+\): rw=(\w+)/.exec(line))) rw.add(m[1]);
    else if (/^\S+: \(groupid=\d+, jobs=\d+\): err=\s*(\d+)/.test(line)) {
      jobs.push({});
      const err = /err=\s*(\d+)/.exec(line)?.[1];
      if (err && err !== '0') {
        b.warnings.push(line.slice(0, 300));
        notes.failure ??= line;
      }
      dir = null;
    } else if (
      (m = /^\s+(read|write|trim)\s*: IOPS=([\d.]+)([kMG]?), BW=([\d.]+)(B|KiB|MiB|GiB|kB|MB|GB)\/s/.exec(
        line,
      ))
    ) {
      const iops = toNumber(m[2]);
      const bw = toNumber(m[4]);
      if (iops === null || bw === null || jobs.length === 0) continue;
      dir = {
        iops: iops * SI[m[3]],
        bw_kib_s: bw * BW_TO_KIB[m[5]],
        lat_avg_ms: null,
        lat_max_ms: null,
        pct: {},
      };
      jobs[jobs.length - 1][m[1] as TDir] = dir;
      runtimes[m[1] as TDir] = toNumber(/\/(\d+)msec\)/.exec(line)?.[1]);
    } else if ((m = /^\s+issued rwts: total=(\d+),(\d+),(\d+)/.exec(line)) && jobs.length > 0) {
      // "IOPS=13.2k" is rounded: recompute from the IO count and the runtime.
      const job = jobs[jobs.length - 1];
      DIRS.forEach((d, i) => {
        const total = toNumber(m?.[i + 1]);
        const ms = runtimes[d];
        const jd = job[d];
        if (jd && total !== null && ms) jd.iops = (total * 1000) / ms;
      });
    } else if (
      dir &&
      (m = /^\s+lat \((nsec|usec|msec)\): min=[\d.]+k?, max=([\d.]+)(k?), avg=([\d.]+)/.exec(line))
    ) {
      const s = TIME_TO_MS[m[1]];
      const max = toNumber(m[2]);
      const avg = toNumber(m[4]);
      dir.lat_max_ms = max === null ? null : max * (m[3] ? 1e3 : 1) * s;
      dir.lat_avg_ms = avg === null ? null : avg * s;
    } else if (dir && (m = /^\s+clat percentiles \((nsec|usec|msec)\):/.exec(line)))
      pctScale = TIME_TO_MS[m[1]];
    else if (dir && pctScale && /^\s+\|/.test(line)) {
      for (const p of line.matchAll(/(?<![\d.])([\d.]+)th=\[\s*(\d+)\]/g)) {
        const key = pctKey(p[1]);
        const v = toNumber(p[2]);
        if (key && v !== null) dir.pct[key] = v * pctScale;
      }
    }
    if (/^\s*(bw|iops|lat|cpu|IO depths)/.test(line)) pctScale = 0;
  }
  b.workload = [...rw].join('+');
  emit(b, jobs);
}

/** fio 3.x: `--output-format=json` (also json+, with leading notes) or the normal text report. */
export function parseFio(output: string): TParseResult {
  const b = new ResultBuilder('fio');
  const notes: TFioNotes = {};
  const jsonStart = output.search(/^\{/m);
  if (jsonStart !== -1 && /"fio version"|"jobs"\s*:/.test(output)) {
    // fio's stderr (`fio: io_u error …`) comes first when both streams were captured.
    for (const line of splitLines(output.slice(0, jsonStart)))
      if (line.startsWith('fio: ')) readNote(notes, line);
    const text = output.slice(jsonStart);
    try {
      parseJson(b, text, {}, notes);
    } catch {
      parsePartialJson(b, text);
      b.markIncomplete('fio JSON document is cut or invalid');
    }
    applyNotes(b, notes);
    return b.build('fio JSON, but no job with read/write/trim IOPS and bandwidth');
  }
  parseText(b, output, notes);
  applyNotes(b, notes);
  if (!/^Run status group/m.test(output)) b.markIncomplete('fio output ends before "Run status group"');
  return b.build('fio text, but no "read:"/"write:" IOPS lines');
}
