import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * For tests and benches: a boot file that runs a worker module (e.g. `alerting/thread-worker.ts`) from source through
 * tsx — production runs the bundled `*-worker.js`. Returns the boot file and its temp dir (remove it when done).
 */
export function bootWorkerFromSource(worker: string): { entry: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'cs-worker-'));
  const entry = join(dir, 'boot.mjs');
  const tsxDir = dirname(createRequire(import.meta.url).resolve('tsx/package.json'));
  const tsxApi = pathToFileURL(join(tsxDir, 'dist/esm/api/index.mjs')).href;
  const src = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), worker)).href;
  writeFileSync(
    entry,
    `import { tsImport } from ${JSON.stringify(tsxApi)};\nawait tsImport(${JSON.stringify(src)}, import.meta.url);\n`,
  );
  return { entry, dir };
}

/** A rule that pages at once when a node is not LIVE (`for: 0`), for tests and benches of the alerting loop. */
export const NODE_DOWN_NOW = {
  name: 'node down (for 0)',
  series: 'node.down',
  comparison: 'gt',
  threshold: 0,
  forS: 0,
  severity: 'critical',
} as const;
