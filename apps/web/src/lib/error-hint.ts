/** What an error page suggests: where to go next for the page that failed. */
export interface TErrorHint {
  title: string;
  advice: string;
  href: string;
  label: string;
}

/** Pure: the next step for an error `status` on `pathname` (under `/<org>/…` or elsewhere). */
export function errorHint(status: number, pathname: string, message = ''): TErrorHint {
  const [, org, section, id] = pathname.split('/');
  const base = org ? `/${org}` : '';
  if (!org || !section) {
    return status === 404
      ? { title: 'Page not found', advice: 'Check the address, or start from your clusters.', href: '/', label: 'Go to the dashboard' }
      : { title: 'Something went wrong', advice: 'Try again in a moment.', href: '/', label: 'Go to the dashboard' };
  } // prettier-ignore
  if (section === 'compare')
    return {
      title: 'Nothing to compare',
      advice: 'Pick 2 to 8 runs on the Runs page (tick their boxes), then press Compare.',
      href: `${base}/runs`,
      label: 'Choose runs',
    };
  const pages: Record<string, { what: string; list: string; label: string }> = {
    clusters: { what: 'cluster', list: 'clusters', label: 'All clusters' },
    runs: { what: 'run', list: 'runs', label: 'All runs' },
    workloads: { what: 'workload', list: 'workloads', label: 'All workloads' },
    oncall: { what: 'page', list: 'oncall', label: 'On-call' },
    settings: { what: 'setting', list: 'settings/members', label: 'Settings' },
  };
  const p = pages[section] ?? { what: 'page', list: 'clusters', label: 'All clusters' };
  const isNode = section === 'clusters' && pathname.includes('/nodes/');
  const what = isNode ? 'node' : p.what;
  if (status === 404)
    return {
      title: `${what[0].toUpperCase()}${what.slice(1)} not found`,
      advice:
        isNode || (id && id !== 'new')
          ? `No ${what} with this id in this organization: it may have been deleted, or the link is from another organization.`
          : 'Check the address.',
      href: isNode ? pathname.slice(0, pathname.indexOf('/nodes/')) : `${base}/${p.list}`,
      label: isNode ? 'Back to the cluster' : p.label,
    };
  if (status === 403)
    return {
      title: 'Not allowed',
      advice: 'Your role in this organization does not allow this. Ask an owner or admin.',
      href: `${base}/${p.list}`,
      label: p.label,
    };
  if (status === 400)
    return {
      title: 'That request was not understood',
      advice: message ? `Fix: ${message}` : 'Check the address or the filters.',
      href: `${base}/${p.list}`,
      label: p.label,
    };
  return {
    title: 'Something went wrong',
    advice: 'Try again in a moment.',
    href: `${base}/${p.list}`,
    label: p.label,
  };
}
