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

export const GET: RequestHandler = async ({ params }) => {
  if (params.file === 'swagger-init.js')
    return new Response(INIT, { headers: { 'content-type': 'text/javascript; charset=utf-8' } });
  const type = FILES[params.file];
  if (!type) error(404, 'not found');
  return new Response(await readFile(path.join(dir, params.file)), {
    headers: { 'content-type': type, 'cache-control': 'public, max-age=86400' },
  });
};
