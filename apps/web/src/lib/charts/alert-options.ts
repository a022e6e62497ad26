import type { TAlertSeriesView } from '@clusterscope/schema';
import type { TBand, TTimeChart, TUnit } from './options';

/** The chart unit of an alert series' unit ('%', 's' and plain counts draw as numbers). */
const UNITS: Record<string, TUnit> = { B: 'bytes', 'B/s': 'Bps', cores: 'cores' };

/**
 * Pure: the alert page's chart: the series around the alert, its rule's threshold as a limit line, the
 * pending and firing windows shaded.
 */
export function alertChart(v: TAlertSeriesView): TTimeChart {
  const lines: TTimeChart['lines'] = [
    { name: 'value', data: v.data, color: '#2563eb', step: v.source === 'evaluations' },
  ];
  if (v.threshold !== null)
    lines.push({
      name: 'threshold',
      data: [
        [v.from, v.threshold],
        [v.to, v.threshold],
      ],
      role: 'limit',
      color: '#dc2626',
    });
  const bands: TBand[] = v.windows.flatMap((w): TBand[] => {
    const fired = w.firedAt;
    if (fired === null) return [{ from: w.from, to: w.to, label: 'pending', tone: 'warn' }];
    return [
      ...(fired > w.from ? [{ from: w.from, to: fired, label: 'pending', tone: 'warn' as const }] : []),
      { from: fired, to: w.to, label: w.to === null ? 'firing' : 'fired', tone: 'bad' },
    ];
  });
  return { unit: UNITS[v.unit] ?? 'count', from: v.from, to: v.to, lines, bands };
}
