import { expect, it } from 'vitest';
import { getOpenApiDocument } from './openapi';
import { appRouter } from './root';

/**
 * The public surface, pinned: REST clients generate code from the OpenAPI document and the web app calls
 * the tRPC procedures by name, so a refactor must leave both byte for byte as they were. A deliberate
 * change updates the files with `vitest run -u` and shows up in review as a diff of them.
 */
it('the OpenAPI document is the pinned one', async () => {
  const doc = getOpenApiDocument('http://localhost:3000');
  await expect(`${JSON.stringify(doc, null, 2)}\n`).toMatchFileSnapshot('../surface/openapi.json');
});

it('the tRPC procedures are the pinned ones', async () => {
  const procedures = Object.entries(
    appRouter._def.procedures as unknown as Record<string, { _def: { type: string } }>,
  )
    .map(([path, p]) => `${p._def.type.padEnd(12)} ${path}`)
    .sort();
  await expect(`${procedures.join('\n')}\n`).toMatchFileSnapshot('../surface/procedures.txt');
});
