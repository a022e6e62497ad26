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
  <link rel="icon" href="/icon.svg" type="image/svg+xml" />
  <link rel="stylesheet" href="/api/docs/swagger-ui.css" />
  <link rel="stylesheet" href="/api/docs/docs.css" />
  <script src="/api/docs/theme.js"></script>
</head>
<body>
  <header class="cs-bar">
    <a href="/" class="cs-back">← Back to Clusterscope</a>
    <span class="cs-title">REST API</span>
    <button type="button" id="cs-theme" class="cs-theme" aria-label="Toggle dark mode">◐</button>
  </header>
  <div id="ui"></div>
  <script src="/api/docs/swagger-ui-bundle.js"></script>
  <script src="/api/docs/swagger-init.js"></script>
</body>
</html>`,
    { headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': DOCS_CSP } },
  );
