/**
 * SvelteKit's CSRF origin check, done here (kit.csrf.trustedOrigins = ['*'] turns the built-in one off) so
 * that one route may take a non-browser text/plain body: CI posting raw tool output with a bearer token
 * (`curl -H 'content-type: text/plain' --data-binary @out.txt`). A cross-site browser form can neither set
 * an Authorization header nor reach that route with one, so everything else is refused exactly as before.
 */
const FORM_TYPES = [
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'text/plain',
  'application/x-sveltekit-formdata',
];
const UNSAFE = ['POST', 'PUT', 'PATCH', 'DELETE'];
const RAW_OUTPUT = /^\/api\/v1\/runs\/[^/]+\/output\/?$/;

/** Pure: whether a request is a cross-site form submission to refuse (403). */
export function isCrossSiteForm(request: Request, url: URL): boolean {
  if (!UNSAFE.includes(request.method)) return false;
  const type = (request.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
  if (!FORM_TYPES.includes(type)) return false;
  if (request.headers.get('origin') === url.origin) return false;
  const bearer = /^Bearer\s+\S/i.test(request.headers.get('authorization') ?? '');
  return !(type === 'text/plain' && request.method === 'POST' && bearer && RAW_OUTPUT.test(url.pathname));
}

/** The answer SvelteKit gives to a refused form submission. */
export function crossSiteFormResponse(request: Request): Response {
  const message = `Cross-site ${request.method} form submissions are forbidden`;
  return request.headers.get('accept') === 'application/json'
    ? new Response(JSON.stringify({ message }), {
        status: 403,
        headers: { 'content-type': 'application/json' },
      })
    : new Response(message, { status: 403, headers: { 'content-type': 'text/plain;charset=UTF-8' } });
}
