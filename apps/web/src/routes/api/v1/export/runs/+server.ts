import { ZRunFilter } from '@clusterscope/schema';
import { error } from '@sveltejs/kit';
import { download, queryOf } from '../respond';
import type { RequestHandler } from './$types';

/** Runs matching the list filters as CSV (default) or JSON (`format=json`). */
export const GET: RequestHandler = (event) =>
  download(event, (api) => {
    const { format, ...rest } = queryOf(event.url);
    const f = ZRunFilter.safeParse(rest);
    if (!f.success) error(400, f.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
    return api.compare.exportRuns({ ...f.data, format });
  });
