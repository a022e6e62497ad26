import { getCaller, load as call } from '$lib/server/caller';
import type { PageServerLoad } from './$types';

export const load: PageServerLoad = async (event) => {
  const api = await getCaller(event, event.params.org);
  const id = event.params.id;
  const [run, comparison, environment] = await call(() =>
    Promise.all([
      api.compare.runDetail({ id }),
      api.compare.run({ id, baseline: event.url.searchParams.get('baseline') || undefined }),
      api.compare.environment({ id }),
    ]),
  );
  return { run, comparison, environment };
};
