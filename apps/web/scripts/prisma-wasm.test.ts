import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { PRISMA_WASM_B64, prismaWasmEsbuild } from './prisma-wasm.mjs';

const CLIENT = path.resolve(__dirname, '../../../packages/db/src/generated/prisma/internal/class.ts');
/** The query compiler import(s) of the generated client. */
const specs = [
  ...readFileSync(CLIENT, 'utf8').matchAll(/import\("(@prisma\/client\/runtime\/[^"]+wasm[^"]*)"\)/g),
].map((m) => m[1]!);
const dir = mkdtempSync(path.join(tmpdir(), 'cs-prisma-wasm-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('prisma-wasm', () => {
  it('matches the import the generated client makes', () => {
    expect(specs.length).toBeGreaterThan(0);
    for (const s of specs) expect(s).toMatch(PRISMA_WASM_B64);
  });

  it('bundles no base64 wasm, and the bundle decodes to the same module', async () => {
    const spec = specs[0]!;
    const entry = path.join(dir, 'entry.mjs');
    writeFileSync(entry, `export { wasm } from ${JSON.stringify(spec)};\n`);
    const outfile = path.join(__dirname, `prisma-wasm-test-${process.pid}.mjs`); // resolves @prisma/client from here
    try {
      await build({
        entryPoints: [entry],
        outfile,
        bundle: true,
        platform: 'node',
        format: 'esm',
        plugins: [prismaWasmEsbuild],
        logLevel: 'silent',
      });
      const code = readFileSync(outfile, 'utf8');
      expect(code.length).toBeLessThan(10_000);
      expect(code).not.toContain('AGFzbQ');
      const { wasm } = (await import(pathToFileURL(outfile).href)) as { wasm: unknown };
      const bytes = Buffer.from(wasm as string, 'base64');
      const original = (await import(createRequire(CLIENT).resolve(spec))) as { wasm: string };
      expect(bytes.subarray(0, 4)).toEqual(Buffer.from('\0asm', 'latin1'));
      expect(bytes.equals(Buffer.from(original.wasm, 'base64'))).toBe(true);
      expect(WebAssembly.validate(bytes)).toBe(true);
    } finally {
      rmSync(outfile, { force: true });
    }
  });
});
