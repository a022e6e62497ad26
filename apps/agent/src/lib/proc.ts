import { readFileSync } from 'node:fs';

/** Read a small text file; undefined when missing/unreadable. */
export function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** "key value" or "key: value kB" lines → map of numbers (first numeric token). */
export function parseKeyValues(text: string | undefined): Map<string, number> {
  const out = new Map<string, number>();
  if (!text) return out;
  for (const line of text.split('\n')) {
    const m = /^([^\s:]+):?\s+(-?\d+(?:\.\d+)?)/.exec(line);
    if (m) out.set(m[1], Number(m[2]));
  }
  return out;
}
