import { ZSlug } from '@clusterscope/schema';
import { error } from '@sveltejs/kit';
import type { RequestHandler } from './$types';

/**
 * The on-call page's web app manifest: like static/manifest.webmanifest, but the home-screen icon opens
 * this organization's on-call view. Contains nothing but the slug from the URL, so it needs no session.
 */
export const GET: RequestHandler = ({ params }) => {
  if (!ZSlug.safeParse(params.org).success) error(404, 'not found');
  const manifest = {
    name: `Clusterscope on-call (${params.org})`,
    short_name: 'On-call',
    description: 'Is every node live? One status per cluster, worst nodes first.',
    id: `/${params.org}/oncall`,
    start_url: `/${params.org}/oncall`,
    scope: '/',
    display: 'standalone',
    background_color: '#0f172a',
    theme_color: '#0f172a',
    icons: [
      { src: '/icon-192.png', sizes: '192x192', type: 'image/png', purpose: 'any' },
      { src: '/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'any maskable' },
      { src: '/icon.svg', sizes: 'any', type: 'image/svg+xml' },
    ],
  };
  return new Response(JSON.stringify(manifest), {
    headers: { 'content-type': 'application/manifest+json', 'cache-control': 'public, max-age=3600' },
  });
};
