import { getCaller, load as call } from '$lib/server/caller';
import type { PageServerLoad } from './$types';

export const load: PageServerLoad = async (event) => {
  const api = await getCaller(event, event.params.org);
  const channels = await call(() => api.alerting.channels());
  const deliveries = await call(() =>
    Promise.all(channels.map((c) => api.alerting.deliveries({ channelId: c.id, limit: 20 }))),
  );
  return { channels: channels.map((c, i) => ({ ...c, deliveries: deliveries[i] })) };
};
