/**
 * The one HTML escaper for strings built in code (ECharts tooltip/label formatters with `renderMode: 'html'`).
 * Svelte templates escape on their own; every custom formatter that returns markup builds it with `html`.
 */
const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

/** Text → HTML text: `& < > " ' \`` become entities, so the result is inert in element content and attributes. */
export function escapeHtml(v: unknown): string {
  return String(v ?? '').replace(/[&<>"'`]/g, (c) => ENTITIES[c]);
}

/** Markup that `html` passes through unescaped (only what `html` itself built). */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

/**
 * Tagged template for formatter markup: the literal parts are trusted, every interpolated value is escaped
 * (arrays are joined; nested `html` results pass through). `html\`<b>${branch}</b>\`.toString()`.
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  const part = (v: unknown): string =>
    v instanceof SafeHtml ? v.value : Array.isArray(v) ? v.map(part).join('') : escapeHtml(v);
  return new SafeHtml(
    strings.reduce((out, s, i) => out + s + (i < values.length ? part(values[i]) : ''), ''),
  );
}
