import { error, redirect } from '@sveltejs/kit';
import { ZRunFilter } from '@clusterscope/schema';
import { getCaller, load as call } from '$lib/server/caller';
import type { PageServerLoad } from './$types';

const KEYS = ['cluster', 'workload', 'tool', 'branch', 'label', 'status', 'from', 'to', 'limit'] as const;

export const load: PageServerLoad = async (event) => {
  const params = event.url.searchParams;
  // The filter form sends every field: keep only the filled ones in the URL.
  if ([...params.values()].some((v) => v === '')) {
    const clean = new URLSearchParams([...params].filter(([, v]) => v !== ''));
    const q = clean.toString();
    redirect(303, `${event.url.pathname}${q ? `?${q}` : ''}`);
  }
  const raw = Object.fromEntries(KEYS.map((k) => [k, params.get(k) ?? '']).filter(([, v]) => v !== ''));
  const pageNo = Number(params.get('page') ?? '1');
  if (!Number.isSafeInteger(pageNo) || pageNo < 1 || pageNo > 20_000)
    error(400, 'page: a whole number from 1');
  const parsed = ZRunFilter.safeParse(raw);
  if (!parsed.success)
    error(400, parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
  const limit = parsed.data.limit;
  const filter = { ...parsed.data, limit, offset: (pageNo - 1) * limit };
  const api = await getCaller(event, event.params.org);
  const view = await call(() => api.pages.runs(filter));
  return { ...view, filter: raw as Record<string, string>, page: pageNo, limit };
};
