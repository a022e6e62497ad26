import { FORMATS } from '@clusterscope/schema';
import { describe, expect, it } from 'vitest';
import { getOpenApiDocument } from './openapi';

describe('OpenAPI document', () => {
  it('POST /runs takes every output format as `tool` (the CI formats included)', () => {
    const doc = getOpenApiDocument('http://x') as unknown as {
      paths: Record<string, { post?: { requestBody?: { content: Record<string, { schema: unknown }> } } }>;
    };
    const schema = JSON.stringify(doc.paths['/runs']?.post?.requestBody?.content['application/json'].schema);
    for (const f of ['hyperfine', 'k6', 'benchbase', 'ycsb', 'bmf']) expect(FORMATS).toContain(f);
    const tool = /"tool":\{[^}]*"enum":(\[[^\]]*\])/.exec(schema);
    expect(tool, schema.slice(0, 300)).not.toBeNull();
    expect(JSON.parse(tool![1])).toEqual([...FORMATS]);
  });
});
