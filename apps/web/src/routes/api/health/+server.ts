import { json } from '@sveltejs/kit';
import { checkHealth } from '@clusterscope/services/health';
import { getServer } from '$lib/server/deps';
import { getEnv } from '$lib/server/env';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = async () => {
  const { deps } = await getServer();
  const h = await checkHealth(deps, getEnv().APP_VERSION);
  return json(h, { status: h.status === 'ok' ? 200 : 503, headers: { 'cache-control': 'no-store' } });
};
