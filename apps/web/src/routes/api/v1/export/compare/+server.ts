import { error } from '@sveltejs/kit';
import { download } from '../respond';
import type { RequestHandler } from './$types';

/** A comparison of 2–8 runs (`runs=a,b,…`, first = baseline) as CSV (default) or JSON. */
export const GET: RequestHandler = (event) =>
  download(event, (api) => {
    const runs = event.url.searchParams.get('runs');
    if (!runs) error(400, 'runs: required (comma-separated run ids)');
    return api.compare.exportComparison({ runs, format: event.url.searchParams.get('format') ?? undefined });
  });
