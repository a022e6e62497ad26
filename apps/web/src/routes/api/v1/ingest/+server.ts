import { handleIngest } from '$lib/server/ingest';
import type { RequestHandler } from './$types';

/** Agent batches; a plain endpoint (not tRPC) for speed. Documented in /api/v1/openapi.json. */
export const POST: RequestHandler = ({ request }) => handleIngest(request);
