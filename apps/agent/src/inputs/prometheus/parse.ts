/**
 * Prometheus text exposition format 0.0.4 (and the OpenMetrics text subset that shares its grammar).
 *
 * Hand-written on purpose: the npm parsers (parse-prometheus-text-format, last released 2019) build one object per
 * family with every sample in memory and do not read OpenMetrics. This one streams sample lines to a callback,
 * so a 3,000-line `/_status/vars` never becomes a tree, and filters by metric name before labels are parsed.
 */

export type TMetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface PromSample {
  /** Full sample name (`sql_service_latency_bucket`). */
  name: string;
  /** Family name from `# TYPE` (`sql_service_latency`), or the sample name when none applies. */
  family: string;
  type: TMetricType;
  labels: Record<string, string>;
  /** May be ±Infinity or NaN; callers decide what to keep. */
  value: number;
  /** Optional timestamp (ms), as written on the line. */
  timestamp?: number;
}

export interface ParseStats {
  samples: number;
  /** Lines that are neither comments nor valid samples (skipped, never fatal). */
  invalid: number;
  firstInvalid?: string;
}

const TYPES: Record<string, TMetricType> = {
  counter: 'counter',
  gauge: 'gauge',
  histogram: 'histogram',
  summary: 'summary',
  untyped: 'untyped',
  unknown: 'untyped',
  // OpenMetrics extras map onto the closest 0.0.4 type.
  gaugehistogram: 'histogram',
  stateset: 'gauge',
  info: 'gauge',
};

/** Suffixes that tie a sample to its histogram/summary (or OpenMetrics counter) family. */
const SUFFIXES = ['_bucket', '_sum', '_count', '_total', '_created', '_gcount', '_gsum'];

/** Go's ParseFloat spellings that JavaScript's Number() does not read. */
export function parseValue(text: string): number {
  switch (text) {
    case '+Inf':
    case 'Inf':
    case '+inf':
    case 'inf':
      return Infinity;
    case '-Inf':
    case '-inf':
      return -Infinity;
    case 'NaN':
    case 'nan':
      return NaN;
  }
  if (text === '') return NaN;
  const n = Number(text);
  // Number('0x10') is 16 and Number('') is 0: the exposition format has neither.
  if (Number.isNaN(n) || /^[+-]?0[xX]/.test(text)) return NaN;
  return n;
}

function unescapeLabel(v: string): string {
  if (!v.includes('\\')) return v;
  return v.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
}

/** Parses `{a="x",b="y\"z"}` starting at `i` (the `{`). Returns the index after `}` or -1. */
function parseLabels(line: string, i: number, out: Record<string, string>): number {
  i++;
  const n = line.length;
  for (;;) {
    while (i < n && (line[i] === ' ' || line[i] === ',')) i++;
    if (i >= n) return -1;
    if (line[i] === '}') return i + 1;
    const eq = line.indexOf('=', i);
    if (eq < 0) return -1;
    const key = line.slice(i, eq).trim();
    if (!/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(key)) return -1;
    i = eq + 1;
    while (line[i] === ' ') i++;
    if (line[i] !== '"') return -1;
    let j = i + 1;
    let esc = false;
    for (; j < n; j++) {
      const c = line[j];
      if (esc) esc = false;
      else if (c === '\\') esc = true;
      else if (c === '"') break;
    }
    if (j >= n) return -1;
    out[key] = unescapeLabel(line.slice(i + 1, j));
    i = j + 1;
  }
}

/**
 * Calls `onSample` for every sample line whose name passes `accept` (checked before labels are parsed).
 * Comments other than `# TYPE` are skipped; invalid lines are counted, never thrown.
 */
export function parsePrometheusText(
  text: string,
  onSample: (s: PromSample) => void,
  accept: (name: string) => boolean = () => true,
): ParseStats {
  const p = createPrometheusParser(onSample, accept);
  p.push(text);
  return p.end();
}

/**
 * The same parser fed in chunks as they arrive from the socket (a scrape never holds the whole body):
 * `push` any number of chunks (socket bytes, or text), then `end`.
 *
 * Each chunk is scanned as a Latin-1 view (one char per byte, so offsets are byte offsets; short-lived, it
 * dies young) with V8's string builtins, fast even without the optimising compiler. HELP lines and samples of
 * refused families are skipped there; only the lines kept are decoded (UTF-8) from the bytes, so no sample
 * holds a slice of a chunk and nothing of the body outlives the push.
 */
export function createPrometheusParser(
  onSample: (s: PromSample) => void,
  accept: (name: string) => boolean = () => true,
): { push(chunk: string | Uint8Array): void; end(): ParseStats } {
  const stats: ParseStats = { samples: 0, invalid: 0 };
  const types = new Map<string, TMetricType>();
  /** The start of a line cut by the end of the previous chunk (a copy: the socket's buffer is not kept). */
  let rest: Buffer | undefined;
  /** The family of the last `# TYPE` line when `accept` refused it: its sample lines are skipped undecoded. */
  let skip = '';
  const invalid = (line: string) => {
    stats.invalid++;
    stats.firstInvalid ??= line.slice(0, 120);
  };
  const line = (raw: string) => {
    const first = (raw.endsWith('\r') ? raw.slice(0, -1) : raw).trimStart();
    if (first === '') return;
    if (first[0] === '#') {
      const m = /^#\s+TYPE\s+(\S+)\s+(\S+)/.exec(first);
      if (m) {
        types.set(m[1], TYPES[m[2].toLowerCase()] ?? 'untyped');
        skip = accept(m[1]) ? '' : m[1];
      }
      return;
    }
    let i = 0;
    while (i < first.length && first[i] !== '{' && first[i] !== ' ' && first[i] !== '\t') i++;
    const name = first.slice(0, i);
    if (!/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(name)) return invalid(first);
    const family = familyOf(name, types);
    if (!accept(family.name) && !accept(name)) return;
    const labels: Record<string, string> = {};
    if (first[i] === '{') {
      i = parseLabels(first, i, labels);
      if (i < 0) return invalid(first);
    }
    const fields = first.slice(i).trim().split(/\s+/);
    const value = fields[0] === undefined ? NaN : parseValue(fields[0]);
    if (fields[0] === undefined || (Number.isNaN(value) && !/^[+-]?nan$/i.test(fields[0])))
      return invalid(first);
    const sample: PromSample = { name, family: family.name, type: family.type, labels, value };
    if (fields[1] !== undefined && fields[1] !== '#') {
      const ts = Number(fields[1]);
      // OpenMetrics timestamps are seconds (with a fraction); 0.0.4's are integer ms.
      if (Number.isFinite(ts)) sample.timestamp = fields[1].includes('.') ? ts * 1000 : ts;
    }
    stats.samples++;
    onSample(sample);
  };
  /** `# TYPE name type` in its plain form, read on the view; false sends the line to `line` (any other form). */
  const typeLine = (view: string, pos: number, end: number): boolean => {
    const sp = view.indexOf(' ', pos + 7);
    if (sp <= pos + 7 || sp >= end) return false;
    const type = TYPES[view.slice(sp + 1, view.charCodeAt(end - 1) === 13 ? end - 1 : end).toLowerCase()];
    if (type === undefined) return false;
    // Names are ASCII ([a-zA-Z_:][a-zA-Z0-9_:]*): the Latin-1 view reads them as UTF-8 would. The slice would keep
    // the whole chunk alive (in `accept`'s memo, in `types`): use the interned copy.
    const family = internName(view.slice(pos + 7, sp));
    if (family.includes('\t')) return false;
    types.set(family, type);
    skip = accept(family) ? '' : family;
    return true;
  };
  /** Lines of `buf` (whose Latin-1 view is `view`) from `pos`; returns where the unfinished last line starts. */
  const lines = (buf: Buffer, view: string, pos: number): number => {
    for (let end = view.indexOf('\n', pos); end >= 0; end = view.indexOf('\n', pos)) {
      const c = view.charCodeAt(pos);
      const done =
        c === 35 /* # */
          ? view.startsWith('# HELP ', pos) || (view.startsWith('# TYPE ', pos) && typeLine(view, pos, end))
          : skip !== '' && c === skip.charCodeAt(0) && isSkipped(view, pos, skip);
      if (!done) line(buf.toString('utf8', pos, end));
      pos = end + 1;
    }
    return pos;
  };
  return {
    push(chunk) {
      const buf =
        typeof chunk === 'string'
          ? Buffer.from(chunk, 'utf8')
          : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      let pos = 0;
      if (rest) {
        const nl = buf.indexOf(10);
        if (nl < 0) {
          rest = Buffer.concat([rest, buf]);
          return;
        }
        const joined = Buffer.concat([rest, buf.subarray(0, nl + 1)]);
        rest = undefined;
        lines(joined, joined.toString('latin1'), 0);
        pos = nl + 1;
      }
      pos = lines(buf, buf.toString('latin1'), pos);
      if (pos < buf.length) rest = Buffer.from(buf.subarray(pos));
    },
    end() {
      if (rest) line(rest.toString('utf8'));
      rest = undefined;
      return stats;
    },
  };
}

/** Family names seen in TYPE lines, as flat copies (the same few hundred on every scrape). */
const NAMES = new Map<string, string>();

function internName(slice: string): string {
  let name = NAMES.get(slice);
  if (name === undefined) {
    name = Buffer.from(slice, 'latin1').toString('latin1');
    if (NAMES.size < 20_000) NAMES.set(name, name);
  }
  return name;
}

/** Whether the line at `pos` is a sample of `family` (`family{`, `family `, or `family_bucket|_sum|_count`). */
function isSkipped(text: string, pos: number, family: string): boolean {
  if (!text.startsWith(family, pos)) return false;
  let i = pos + family.length;
  if (text.charCodeAt(i) === 95 /* _ */) {
    if (text.startsWith('_bucket', i)) i += 7;
    else if (text.startsWith('_sum', i)) i += 4;
    else if (text.startsWith('_count', i)) i += 6;
  }
  const c = text.charCodeAt(i);
  return c === 123 /* { */ || c === 32 /* space */;
}

function familyOf(name: string, types: Map<string, TMetricType>): { name: string; type: TMetricType } {
  const direct = types.get(name);
  if (direct) return { name, type: direct };
  for (const suf of SUFFIXES) {
    if (!name.endsWith(suf)) continue;
    const base = name.slice(0, -suf.length);
    const t = types.get(base);
    if (t) return { name: base, type: t };
  }
  return { name, type: 'untyped' };
}
