import { sveltekit } from '@sveltejs/kit/vite';
import { defineConfig } from 'vite';
import { prismaWasmVite } from './scripts/prisma-wasm.mjs';

export default defineConfig({
  plugins: [prismaWasmVite, sveltekit()],
  server: { host: '127.0.0.1', fs: { allow: ['../..'] } },
  build: { chunkSizeWarningLimit: 1200 },
});
