import { download } from '../../../respond';
import type { RequestHandler } from './$types';

/** The run's raw tool output as a .txt download. */
export const GET: RequestHandler = (event) =>
  download(event, async (api) => ({
    filename: `run-${event.params.id}-output.txt`,
    contentType: 'text/plain; charset=utf-8',
    body: await api.compare.rawOutput({ id: event.params.id }),
  }));
