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

export const GET: RequestHandler = async ({ params }) => {
  const type = FILES[params.file];
  if (!type) error(404, 'not found');
  return new Response(await readFile(path.join(dir, params.file)), {
    headers: { 'content-type': type, 'cache-control': 'public, max-age=86400' },
  });
};
