import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { error } from '@sveltejs/kit';
import type { RequestHandler } from './$types';

const FILES: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

const dir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** Swagger UI's start-up, served as a file so the docs page needs no inline script under its CSP. */
const INIT = `window.ui = SwaggerUIBundle({ url: '/api/v1/openapi.json', dom_id: '#ui', persistAuthorization: true });\n`;

/** The app's theme (saved choice, else the system's), applied before the page paints; the button toggles it. */
const THEME = `(() => {
  const root = document.documentElement;
  root.dataset.theme = localStorage.getItem('theme') ?? (matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light');
  addEventListener('DOMContentLoaded', () => document.getElementById('cs-theme')?.addEventListener('click', () => {
    root.dataset.theme = root.dataset.theme === 'dark' ? 'light' : 'dark';
    localStorage.setItem('theme', root.dataset.theme);
  }));
})();
`;

/** A bar back to the app, and dark mode: Swagger UI has none, so its light page is inverted (colours rotated back). */
const CSS = `body { margin: 0; background: #f8fafc; font: 14px/1.45 system-ui, sans-serif; }
.cs-bar { display: flex; gap: 1rem; align-items: center; padding: 0.6rem 1rem; background: #fff; border-bottom: 1px solid #e2e8f0; }
.cs-back { color: #2563eb; text-decoration: none; font-weight: 600; }
.cs-title { color: #0f172a; font-weight: 700; flex: 1; }
.cs-theme { font: inherit; background: none; border: 1px solid #e2e8f0; border-radius: 6px; padding: 0.2rem 0.6rem; cursor: pointer; color: inherit; }
[data-theme='dark'] body { background: #0b1120; color-scheme: dark; }
[data-theme='dark'] .cs-bar { background: #111827; border-color: #1f2937; }
[data-theme='dark'] .cs-back { color: #60a5fa; }
[data-theme='dark'] .cs-title, [data-theme='dark'] .cs-theme { color: #e5e7eb; border-color: #1f2937; }
[data-theme='dark'] .swagger-ui { filter: invert(0.9) hue-rotate(180deg); }
[data-theme='dark'] .swagger-ui img, [data-theme='dark'] .swagger-ui svg { filter: invert(1) hue-rotate(180deg); }
`;

export const GET: RequestHandler = async ({ params }) => {
  if (params.file === 'swagger-init.js')
    return new Response(INIT, { headers: { 'content-type': 'text/javascript; charset=utf-8' } });
  if (params.file === 'theme.js')
    return new Response(THEME, { headers: { 'content-type': 'text/javascript; charset=utf-8' } });
  if (params.file === 'docs.css')
    return new Response(CSS, { headers: { 'content-type': 'text/css; charset=utf-8' } });
  const type = FILES[params.file];
  if (!type) error(404, 'not found');
  return new Response(await readFile(path.join(dir, params.file)), {
    headers: { 'content-type': type, 'cache-control': 'public, max-age=86400' },
  });
};
