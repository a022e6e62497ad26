import type {
  THistogramBucket,
  TIntervalSample,
  TMetric,
  TParseResult,
  TStatementLatency,
  TFormat,
} from '@clusterscope/schema';
import { ParseError } from '../errors';
import { directionOf, getMetricInfo } from '../metrics';

/** Number from a tool's text, or null when it is not a finite number. */
export function toNumber(text: string | undefined): number | null {
  if (text === undefined) return null;
  const n = Number(text.trim());
  return Number.isFinite(n) ? n : null;
}

/** Duration text with a unit (`253.67us`, `1.01ms`, `2.5s`, `1m`) to milliseconds. */
export function toMs(text: string | undefined): number | null {
  // \u00b5 = µ: esbuild leaves non-ASCII in a regex as it is, and then V8 keeps the whole server chunk two-byte.
  const m = /^([\d.]+)(ns|us|\u00b5s|ms|s|m|h)$/.exec(text?.trim() ?? '');
  if (!m) return null;
  const n = toNumber(m[1]);
  if (n === null) return null;
  const scale: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1e3, m: 6e4, h: 3.6e6 };
  return n * scale[m[2]];
}

/** Accumulates one parse result; drops non-finite values so the result always validates. */
export class ResultBuilder {
  readonly samples: TIntervalSample[] = [];
  readonly warnings: string[] = [];
  private readonly metrics = new Map<string, TMetric>();
  histogram: THistogramBucket[] | undefined;
  statements: TStatementLatency[] | undefined;
  workload = '';
  incomplete = false;
  /** Set when the output ends in an error: the run failed. */
  error: string | undefined;

  constructor(readonly tool: TFormat) {}

  /** Adds a summary metric; a later value for the same name replaces the earlier one. */
  metric(name: string, value: number | null, unit?: string): void {
    if (value === null || !Number.isFinite(value)) return;
    const info = getMetricInfo(name);
    this.metrics.set(name, {
      name,
      value,
      unit: unit ?? info?.unit ?? '',
      direction: info?.direction ?? directionOf(name),
    });
  }

  hasMetric(name: string): boolean {
    return this.metrics.has(name);
  }

  /** Adds an interval sample; merges into the previous one when it has the same elapsed time. */
  sample(elapsed_s: number | null, values: Record<string, number | null>): void {
    if (elapsed_s === null || !Number.isFinite(elapsed_s) || elapsed_s < 0) return;
    const clean: Record<string, number> = {};
    for (const [k, v] of Object.entries(values)) if (v !== null && Number.isFinite(v)) clean[k] = v;
    if (Object.keys(clean).length === 0) return;
    const last = this.samples.at(-1);
    if (last && last.elapsed_s === elapsed_s) Object.assign(last.values, clean);
    else this.samples.push({ elapsed_s, values: clean });
  }

  markIncomplete(what: string): void {
    this.incomplete = true;
    this.warnings.push(`incomplete: ${what}`);
  }

  /** Throws ParseError when nothing at all was read. */
  build(recognisedIfEmpty: string): TParseResult {
    const summary = [...this.metrics.values()];
    // An output that only says why the tool failed is still read: a failed run without metrics.
    if (summary.length === 0 && this.samples.length === 0 && !this.error) {
      throw new ParseError(`no ${this.tool} interval lines or summary found`, recognisedIfEmpty, this.tool);
    }
    const result: TParseResult = {
      tool: this.tool,
      workload: this.workload.slice(0, 128) || this.tool,
      samples: this.samples,
      summary,
      warnings: this.warnings,
      incomplete: this.incomplete,
    };
    if (this.error) result.error = this.error.slice(0, 4000);
    if (this.histogram?.length) result.histogram = this.histogram;
    if (this.statements?.length) result.statements = this.statements;
    return result;
  }
}

/** Splits output into lines without carriage returns (a string separator: several times faster than a regex one). */
export function splitLines(output: string): string[] {
  const lines = output.split('\n');
  for (let i = 0; i < lines.length; i++) if (lines[i].endsWith('\r')) lines[i] = lines[i].slice(0, -1);
  return lines;
}
