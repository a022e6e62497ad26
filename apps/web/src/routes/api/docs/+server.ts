import type { RequestHandler } from './$types';

/** Swagger UI runs only scripts served from here (no inline script) and needs inline styles and data: images. */
const DOCS_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** Interactive REST docs (Swagger UI, served from the installed package; works offline). */
export const GET: RequestHandler = () =>
  new Response(
    `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <meta name="viewport" content="width=device-width, initial-scale=1" />
  <title>Clusterscope API</title>
  <link rel="stylesheet" href="/api/docs/swagger-ui.css" />
</head>
<body>
  <div id="ui"></div>
  <script src="/api/docs/swagger-ui-bundle.js"></script>
  <script src="/api/docs/swagger-init.js"></script>
</body>
</html>`,
    { headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': DOCS_CSP } },
  );
