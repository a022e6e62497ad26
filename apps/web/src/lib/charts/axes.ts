/**
 * Pure axis helpers: round ticks in the unit the axis shows (2, 4, 6, 8 GiB; 50, 100, 150 MiB/s), integer
 * ticks for counts, time-axis label templates by span (month + day from 2 days up), and how far above the
 * data a limit line may sit before it is taken off the scale.
 */

const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'] as const;
const STEPS = [1, 2, 2.5, 5, 10];

/** A round step (1, 2, 2.5, 5 × 10^k) that splits `span` into about `ticks` intervals (never 0). */
export function niceStep(span: number, ticks = 4): number {
  if (!Number.isFinite(span) || span <= 0) return 1;
  const raw = span / ticks;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = STEPS.find((s) => s * mag >= raw - 1e-12 * mag) ?? 10;
  return step * mag;
}

export interface TValueAxis {
  min: number;
  max: number;
  interval: number;
  /** Label of a tick value (in the axis' display unit). */
  format: (v: number) => string;
}

const trim = (v: number) => String(Number(v.toFixed(3)));

/**
 * Axis of byte values (or bytes/s with `perSecond`): picks the display unit from the largest value, then
 * round ticks in that unit, so labels read 0, 2, 4, 6, 8 GiB rather than 1.9, 3.7 GiB.
 */
export function byteAxis(maxValue: number, perSecond = false, ticks = 4): TValueAxis {
  const top = Number.isFinite(maxValue) && maxValue > 0 ? maxValue : 1;
  let i = 0;
  while (top / 1024 ** i >= 1024 && i < BYTE_UNITS.length - 1) i++;
  const factor = 1024 ** i;
  const step = niceStep(top / factor, ticks);
  const max = Math.ceil(top / factor / step - 1e-9) * step;
  const suffix = `${BYTE_UNITS[i]}${perSecond ? '/s' : ''}`;
  return {
    min: 0,
    max: max * factor,
    interval: step * factor,
    format: (v) => `${trim(v / factor)} ${suffix}`,
  };
}

/** Axis of a plain quantity (cores, counts): round ticks; counts get integer steps (at least 1). */
export function valueAxis(
  maxValue: number,
  opts: { integer?: boolean; ticks?: number } = {},
): Omit<TValueAxis, 'format'> {
  const top = Number.isFinite(maxValue) && maxValue > 0 ? maxValue : opts.integer ? 1 : 1;
  let step = niceStep(top, opts.ticks ?? 4);
  if (opts.integer) step = Math.max(1, Math.round(step === 2.5 ? 2 : step));
  return { min: 0, max: Math.ceil(top / step - 1e-9) * step, interval: step };
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * ECharts time-axis label templates for a window span (they follow the chart's `useUTC`): up to a day,
 * times; up to 2 days, the day at midnight; from 2 days up (7d, 30d), month and day.
 */
export function timeAxisLabels(spanMs: number): Record<string, string> {
  if (spanMs >= 2 * DAY)
    return {
      year: '{yyyy}',
      month: '{MMM} {d}',
      day: '{MMM} {d}',
      hour: '{MMM} {d} {HH}:{mm}',
      minute: '{MMM} {d} {HH}:{mm}',
      second: '{MMM} {d} {HH}:{mm}',
      millisecond: '{MMM} {d} {HH}:{mm}',
      none: '{MMM} {d} {HH}:{mm}',
    };
  return {
    year: '{yyyy}',
    month: '{MMM} {d}',
    day: '{MMM} {d}',
    hour: '{HH}:{mm}',
    minute: '{HH}:{mm}',
    second: '{HH}:{mm}:{ss}',
    millisecond: '{HH}:{mm}:{ss}',
    none: '{HH}:{mm}:{ss}',
  };
}

/** A limit this many times above the data's top is taken off the scale (labelled, toggled in the legend). */
export const OFF_SCALE_FACTOR = 3;

/** True when a limit would squash the data into the bottom third of the chart. */
export const isOffScale = (limit: number, dataMax: number): boolean =>
  Number.isFinite(limit) && limit > 0 && (dataMax <= 0 ? true : limit > OFF_SCALE_FACTOR * dataMax);
