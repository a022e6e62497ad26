// Prisma's query compiler ships as a module exporting the .wasm as a base64 string (4.6 MB). Imported, V8 keeps
// it twice for the process's life (the module's source and the string). The server and thread builds replace
// that module with `lazyWasm`: a value whose string form (what the generated client's Buffer.from / atob take)
// is read from the installed module when the client starts, and is then garbage like any other string.

/** The import the generated client makes (`@prisma/client/runtime/query_compiler_…wasm-base64.mjs`). */
export const PRISMA_WASM_B64 = /^@prisma\/client\/runtime\/query_compiler_[\w.]+\.wasm-base64\.mjs$/;

/**
 * The replacement module's code. It throws, naming the file, if the module no longer is `const wasm = "…"`.
 * @param {string} spec the import being replaced
 */
export const lazyWasm = (spec) => `import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
const file = createRequire(import.meta.url).resolve(${JSON.stringify(spec)});
export const wasm = {
  [Symbol.toPrimitive]() {
    const s = readFileSync(file, 'latin1');
    const from = s.indexOf('"') + 1;
    const to = s.indexOf('"', from);
    if (from === 0 || to < 0) throw new Error('Prisma query compiler: no base64 string in ' + file);
    return s.slice(from, to);
  },
};
`;

/** For esbuild (the thread bundles). @type {import('esbuild').Plugin} */
export const prismaWasmEsbuild = {
  name: 'prisma-wasm',
  setup(b) {
    b.onResolve({ filter: PRISMA_WASM_B64 }, (args) => ({ path: args.path, namespace: 'prisma-wasm' }));
    b.onLoad({ filter: /.*/, namespace: 'prisma-wasm' }, (args) => ({
      contents: lazyWasm(args.path),
      loader: 'js',
    }));
  },
};

const VIRTUAL = '\0prisma-wasm:';
/** For vite (the server build; dev and tests import the module as it is). @type {import('vite').Plugin} */
export const prismaWasmVite = {
  name: 'prisma-wasm',
  apply: 'build',
  enforce: 'pre',
  resolveId: (id, _importer, opts) => (opts?.ssr && PRISMA_WASM_B64.test(id) ? VIRTUAL + id : null),
  load: (id) => (id.startsWith(VIRTUAL) ? lazyWasm(id.slice(VIRTUAL.length)) : null),
};
