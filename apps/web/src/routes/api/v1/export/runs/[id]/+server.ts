import { download } from '../../respond';
import type { RequestHandler } from './$types';

/** One run's summary metrics and interval samples as CSV (default) or JSON. */
export const GET: RequestHandler = (event) =>
  download(event, (api) =>
    api.compare.exportResults({
      id: event.params.id,
      format: event.url.searchParams.get('format') ?? undefined,
    }),
  );
