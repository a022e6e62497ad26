import { describe, expect, it } from 'vitest';
import { escapeHtml, html } from './escape';
import { HOSTILE, INERT_MARKUP, scanMarkupFormatters } from './hostile.test-util';
import { buildElapsedOption, buildHistoryOption } from './bench-options';
import { buildTimeOption, eventMarkers, limitLines } from './options';

describe('escapeHtml', () => {
  it('turns every markup character into an entity', () => {
    expect(escapeHtml(`<img src=x onerror="a('b')">&\``)).toBe(
      '&lt;img src=x onerror=&quot;a(&#39;b&#39;)&quot;&gt;&amp;&#96;',
    );
    expect(escapeHtml(null)).toBe('');
    expect(escapeHtml(42)).toBe('42');
  });
  it('leaves no tag or attribute break in any hostile string', () => {
    for (const s of HOSTILE) expect(escapeHtml(s)).not.toMatch(/[<>"'`]/);
  });
});

describe('html', () => {
  it('escapes interpolations and keeps the literal markup', () => {
    const branch = '<img src=x onerror="window.__xss=1">';
    expect(html`<b>${branch}</b>`.toString()).toBe(
      '<b>&lt;img src=x onerror=&quot;window.__xss=1&quot;&gt;</b>',
    );
  });
  it('passes nested html results through once and joins arrays', () => {
    expect(html`<p>${html`<i>${'<'}</i>`}${['<', html`<br />`]}</p>`.toString()).toBe(
      '<p><i>&lt;</i>&lt;<br /></p>',
    );
  });
});

describe('chart option builders with hostile strings', () => {
  it('history tooltip: branch and sha from CI stay text', () => {
    for (const s of HOSTILE) {
      const t = 1_700_000_000_000;
      const o = buildHistoryOption({
        label: s,
        unit: s,
        points: [{ runId: s, t, value: 1, sha: s, branch: s, envHealthy: false }],
        band: { lo: 0, hi: 2, mean: 1, branch: s },
        direction: 'higher',
        changePoints: [{ t }],
      });
      const out = scanMarkupFormatters(o, [{ value: [t, 1] }]);
      expect(out.length).toBeGreaterThan(0);
      for (const x of out) expect(x).toMatch(INERT_MARKUP);
    }
  });
  it('time and elapsed charts: no custom markup formatter gets a name unescaped', () => {
    for (const s of HOSTILE) {
      const lines = [{ name: s, data: [[1, 2]] as [number, number][] }];
      const opts = [
        buildElapsedOption({ unit: s, lines }),
        buildTimeOption({
          unit: 'count',
          from: 0,
          to: 10,
          lines: [...lines, ...limitLines([{ name: s, node_id: 1, data: [[1, 3]] }], 0, 10, s)],
          markers: [...eventMarkers([{ ts: 1, node_id: 1, to: s }]), { ts: 2, label: s }],
        }),
      ];
      for (const o of opts)
        for (const x of scanMarkupFormatters(o, [1, s, { name: s, value: [1, 2], seriesName: s }]))
          expect(x).toMatch(INERT_MARKUP);
    }
  });
});
