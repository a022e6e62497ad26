import * as z from 'zod/mini';

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const SIZE_UNITS: Record<string, number> = {
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
};

/** "10s", "500ms", "1m", or a number of seconds → ms. */
export function parseDurationMs(v: string | number): number {
  if (typeof v === 'number') return Math.round(v * 1000);
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/i.exec(v);
  if (!m) throw new Error(`invalid duration "${v}" (use e.g. 10s, 500ms, 1m)`);
  return Math.round(Number(m[1]) * DURATION_UNITS[(m[2] ?? 's').toLowerCase()]);
}

/** "256MB", "1GiB", or a number of bytes → bytes. */
export function parseSizeBytes(v: string | number): number {
  if (typeof v === 'number') return Math.round(v);
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kmg]i?b|b)?\s*$/i.exec(v);
  if (!m) throw new Error(`invalid size "${v}" (use e.g. 256MB, 64MiB, 1048576)`);
  return Math.round(Number(m[1]) * SIZE_UNITS[(m[2] ?? 'b').toLowerCase()]);
}

function refineParse<T>(parse: (v: string | number) => T) {
  return z.pipe(
    z.union([z.number().check(z.nonnegative()), z.string()]),
    z.transform((v: string | number, ctx) => {
      try {
        return parse(v);
      } catch (e) {
        ctx.issues.push({ code: 'custom', message: (e as Error).message, input: v });
        return z.NEVER;
      }
    }),
  );
}

/** Zod duration field (output: milliseconds). */
export const ZDurationMs = refineParse(parseDurationMs);
/** Zod size field (output: bytes). */
export const ZSizeBytes = refineParse(parseSizeBytes);
