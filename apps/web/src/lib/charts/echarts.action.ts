import type { Action } from 'svelte/action';
import type { EChartsCoreOption, EChartsType } from 'echarts/core';

export interface TChartParams {
  option: EChartsCoreOption;
  /** Charts in one group share the tooltip / axis pointer. */
  group?: string;
}

const themeName = () =>
  typeof document !== 'undefined' && document.documentElement.dataset.theme === 'dark' ? 'dark' : 'default';

/**
 * The one owner of the ECharts lifecycle: lazy-loads ECharts (so routes without charts never ship it),
 * inits on the node, applies options, follows the node's size (ResizeObserver) and the app theme
 * (`themechange` window event), and disposes on destroy. Components only build options.
 */
export const echartsAction: Action<HTMLElement, TChartParams> = (node, initial) => {
  let params = initial;
  let chart: EChartsType | null = null;
  let destroyed = false;
  let ro: ResizeObserver | null = null;

  const apply = () => {
    if (!chart) return;
    chart.setOption(params.option, { notMerge: true, lazyUpdate: true });
    if (params.group) chart.group = params.group;
  };
  const onTheme = () => chart?.setTheme(themeName());

  void import('./echarts-lib').then(({ echarts }) => {
    if (destroyed) return;
    chart = echarts.init(node, themeName(), { renderer: 'canvas' });
    apply();
    if (params.group) echarts.connect(params.group);
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
