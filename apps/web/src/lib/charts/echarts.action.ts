import type { Action } from 'svelte/action';
import type { EChartsCoreOption, EChartsType } from 'echarts/core';

export interface TChartParams {
  option: EChartsCoreOption;
  /** Charts in one group share the tooltip / axis pointer. */
  group?: string;
  /**
   * Drag-to-zoom: with a `brush` in the option, dragging across the plot selects an x range and calls
   * this with it (ms or axis units, from < to); the selection is then cleared.
   */
  onRange?: (from: number, to: number) => void;
  /** Click on a data point: called with the data item (e.g. `{ value, runId }`). */
  onPoint?: (data: unknown) => void;
  /** Renderer, fixed at init: canvas (default) or svg (axis labels become DOM text). */
  renderer?: 'canvas' | 'svg';
}

const themeName = () =>
  typeof document !== 'undefined' && document.documentElement.dataset.theme === 'dark' ? 'dark' : 'default';

/**
 * The one owner of the ECharts lifecycle: lazy-loads ECharts (so routes without charts never ship it),
 * inits on the node, applies options, follows the node's size (ResizeObserver) and the app theme
 * (`themechange` window event), wires drag-to-zoom and point clicks, and disposes on destroy. Components
 * only build options.
 */
export const echartsAction: Action<HTMLElement, TChartParams> = (node, initial) => {
  let params = initial;
  let chart: EChartsType | null = null;
  let destroyed = false;
  let ro: ResizeObserver | null = null;

  const armBrush = () => {
    if (!chart || !params.onRange) return;
    chart.dispatchAction({
      type: 'takeGlobalCursor',
      key: 'brush',
      brushOption: { brushType: 'lineX', brushMode: 'single' },
    });
  };
  const apply = () => {
    if (!chart) return;
    // With drag-to-zoom the option must be in place before the brush cursor is taken (no lazy update).
    chart.setOption(params.option, { notMerge: true, lazyUpdate: !params.onRange });
    if (params.group) chart.group = params.group;
    armBrush();
  };
  const onTheme = () => chart?.setTheme(themeName());

  void import('./echarts-lib').then(({ echarts }) => {
    if (destroyed) return;
    chart = echarts.init(node, themeName(), { renderer: params.renderer ?? 'canvas' });
    apply();
    if (params.group) echarts.connect(params.group);
    chart.on('brushEnd', (e: unknown) => {
      const area = (e as { areas?: { coordRange?: unknown }[] }).areas?.[0];
      const r = area?.coordRange;
      chart?.dispatchAction({ type: 'brush', areas: [] });
      if (Array.isArray(r) && r.length === 2 && typeof r[0] === 'number' && typeof r[1] === 'number') {
        const [a, b] = r[0] <= r[1] ? [r[0], r[1]] : [r[1], r[0]];
        if (b > a) params.onRange?.(Math.round(a), Math.round(b));
      }
    });
    chart.on('click', (e: unknown) => params.onPoint?.((e as { data?: unknown }).data));
    ro = new ResizeObserver(() => chart?.resize());
    ro.observe(node);
    window.addEventListener('themechange', onTheme);
  });

  return {
    update(next) {
      params = next;
      apply();
    },
    destroy() {
      destroyed = true;
      ro?.disconnect();
      window.removeEventListener('themechange', onTheme);
      chart?.dispose();
      chart = null;
    },
  };
};
