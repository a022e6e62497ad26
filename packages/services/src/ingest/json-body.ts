/** JSON request bodies decoded, depth-checked and parsed (on the parse worker for the bulk routes). */

/** Deepest JSON nesting accepted; checked before JSON.parse or validation can recurse on it. */
export const JSON_MAX_DEPTH = 64;

/** Deepest nesting of objects/arrays in `text`, stopping early once it exceeds `stopAt`. Strings are skipped. */
export function jsonDepth(text: string, stopAt = Infinity): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > max && (max = depth) > stopAt) return max;
    } else if (c === 125 || c === 93) depth--;
  }
  return max;
}

export interface TJsonLimits {
  maxDepth: number;
  /** The one string member that may be large (`output`). */
  bulkKey: string;
  /** Most bytes of the body's JSON other than that member. */
  maxOtherBytes: number;
}

/** A decoded JSON body, or why it was refused. */
export type TJsonBody =
  | { ok: true; data: unknown }
  | { ok: false; error: 'too-deep' | 'too-large' | 'syntax'; message: string };

/**
 * A request body as JSON, as `Request.text()` and `JSON.parse` read it (UTF-8, bad sequences replaced, a BOM
 * dropped), refused when nested deeper than `maxDepth` or when, besides `bulkKey` as a string, it holds more than
 * `maxOtherBytes` of JSON: only that member comes back large, so the thread that receives the value copies
 * one string and small objects.
 */
export function decodeJsonBody(bytes: Uint8Array, limits: TJsonLimits): TJsonBody {
  const text = new TextDecoder('utf-8').decode(bytes);
  if (jsonDepth(text, limits.maxDepth) > limits.maxDepth)
    return { ok: false, error: 'too-deep', message: `JSON nested deeper than ${limits.maxDepth} levels` };
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: 'syntax', message: (err as Error).message };
  }
  if (bytes.byteLength > limits.maxOtherBytes) {
    let other = data;
    if (data && typeof data === 'object' && !Array.isArray(data)) {
      const rest: Record<string, unknown> = { ...data };
      if (typeof rest[limits.bulkKey] === 'string') delete rest[limits.bulkKey];
      other = rest;
    }
    if (Buffer.byteLength(JSON.stringify(other)) > limits.maxOtherBytes)
      return {
        ok: false,
        error: 'too-large',
        message: `request body exceeds ${Math.round(limits.maxOtherBytes / 1024)} KB besides '${limits.bulkKey}'`,
      };
  }
  return { ok: true, data };
}
