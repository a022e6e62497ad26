import type { Action } from 'svelte/action';
import type { EChartsCoreOption, EChartsType } from 'echarts/core';

export interface TChartParams {
  option: EChartsCoreOption;
  /** Charts in one group share the tooltip / axis pointer. */
  group?: string;
  /**
   * Drag-to-zoom: dragging across the plot (more than 8 px) shades the span and calls this with its x
   * range in axis units (ms on a time axis), from < to.
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

  let dragFrom: number | null = null;
  let shade: HTMLDivElement | null = null;
  const xOf = (e: PointerEvent) => e.clientX - node.getBoundingClientRect().left;
  const onDown = (e: PointerEvent) => {
    if (!params.onRange || e.button !== 0 || !chart) return;
    if (!chart.containPixel({ gridIndex: 0 }, [xOf(e), e.clientY - node.getBoundingClientRect().top])) return;
    dragFrom = xOf(e);
    shade ??= Object.assign(document.createElement('div'), { className: 'zoom-shade' });
    Object.assign(shade.style, {
      position: 'absolute', top: '0', bottom: '0', left: `${dragFrom}px`, width: '0px',
      background: 'rgba(37,99,235,0.15)', borderInline: '1px solid rgba(37,99,235,0.6)', pointerEvents: 'none',
    }); // prettier-ignore
    node.appendChild(shade);
  };
  const onMove = (e: PointerEvent) => {
    if (dragFrom === null || !shade) return;
    const x = xOf(e);
    shade.style.left = `${Math.min(x, dragFrom)}px`;
    shade.style.width = `${Math.abs(x - dragFrom)}px`;
  };
  const onUp = (e: PointerEvent) => {
    if (dragFrom === null) return;
    const x0 = dragFrom;
    const x1 = xOf(e);
    dragFrom = null;
    shade?.remove();
    if (!chart || Math.abs(x1 - x0) < 8) return;
    const a = Number(chart.convertFromPixel({ xAxisIndex: 0 }, Math.min(x0, x1)));
    const b = Number(chart.convertFromPixel({ xAxisIndex: 0 }, Math.max(x0, x1)));
    if (Number.isFinite(a) && Number.isFinite(b) && b > a) params.onRange?.(Math.round(a), Math.round(b));
  };
  const apply = () => {
    if (!chart) return;
    chart.setOption(params.option, { notMerge: true, lazyUpdate: true });
    if (params.group) chart.group = params.group;
  };
  const onTheme = () => chart?.setTheme(themeName());

  void import('./echarts-lib').then(({ echarts }) => {
    if (destroyed) return;
    chart = echarts.init(node, themeName(), { renderer: params.renderer ?? 'canvas' });
    apply();
    if (params.group) echarts.connect(params.group);
    node.addEventListener('pointerdown', onDown);
    window.addEventListener('pointermove', onMove);
    window.addEventListener('pointerup', onUp);
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
      node.removeEventListener('pointerdown', onDown);
      window.removeEventListener('pointermove', onMove);
      window.removeEventListener('pointerup', onUp);
      chart?.dispose();
      chart = null;
    },
  };
};
