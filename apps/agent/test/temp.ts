import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made = new Set<string>();
const cleanup = () => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
  made.clear();
};
// Vitest ends its workers without an 'exit' event: there, each test file removes its dirs after its tests.
if (process.env.VITEST) (await import('vitest')).afterAll(cleanup);
else process.on('exit', cleanup);

/** A new directory under the OS temp dir, removed after this test file (Vitest) or worker process (Playwright). */
export function tempDir(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), `${prefix}-`));
  made.add(d);
  return d;
}
