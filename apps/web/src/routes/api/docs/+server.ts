import type { RequestHandler } from './$types';

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
  <script>
    window.ui = SwaggerUIBundle({ url: '/api/v1/openapi.json', dom_id: '#ui', persistAuthorization: true });
  </script>
</body>
</html>`,
    { headers: { 'content-type': 'text/html; charset=utf-8' } },
  );
