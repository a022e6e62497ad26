/** Hostile strings and an option walker shared by the chart tests (test-only; not imported by the app). */
export const HOSTILE = [
  '<img src=x onerror="window.__xss=1">',
  '"><svg onload=alert(1)>',
  "'><script>window.__xss=1</script>",
  '</script><script>alert(1)</script>',
  '{@html "<b>x</b>"}',
  '{a|<img src=x onerror=alert(1)>}',
  'javascript:alert(1)',
  '`${alert(1)}`',
] as const;

/**
 * Calls every function-valued `formatter` under a `tooltip` (ECharts inserts its result as HTML) with each
 * argument and returns what they produced. `valueFormatter` results are escaped by ECharts itself and label
 * or axis formatters draw on the canvas, so those are text and not collected.
 */
export function scanMarkupFormatters(option: unknown, args: readonly unknown[]): string[] {
  const out: string[] = [];
  const walk = (v: unknown, inTooltip: boolean) => {
    if (Array.isArray(v)) return v.forEach((x) => walk(x, inTooltip));
    if (!v || typeof v !== 'object') return;
    for (const [k, x] of Object.entries(v)) {
      if (k === 'formatter' && inTooltip && typeof x === 'function')
        for (const a of args) out.push(String((x as (a: unknown) => unknown)(a)));
      else walk(x, inTooltip || k === 'tooltip');
    }
  };
  walk(option, false);
  return out;
}

/** Markup without any tag but `<br />`: what a tooltip built from hostile strings may contain. */
export const INERT_MARKUP = /^(?:[^<>]|<br \/>)*$/;
