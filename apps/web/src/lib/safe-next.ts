/**
 * A redirect target taken from the URL (`?next=`) is used only when it is a path on this origin.
 * Anything else (another host, a scheme, backslashes, control characters, or any of those percent-encoded,
 * however many times) falls back to `fallback`.
 */
export function safeNext(raw: string | null | undefined, fallback = '/'): string {
  if (!raw || raw.length > 2048) return fallback;
  // Decode until stable so `%252F%252F` and friends are judged by what a browser would finally see.
  let v = raw;
  for (let i = 0; i < 5; i++) {
    if (!isSafePath(v)) return fallback;
    let next: string;
    try {
      next = decodeURIComponent(v);
    } catch {
      return fallback;
    }
    if (next === v) return raw;
    v = next;
  }
  return fallback;
}

function isSafePath(v: string): boolean {
  if (!v.startsWith('/')) return false;
  // `//host` and `/\host` are protocol-relative to browsers; `\` alone is normalised to `/`.
  if (v.startsWith('//') || v.includes('\\')) return false;
  // Control characters (browsers strip \t \n \r from URLs, turning `/\t/evil` into `//evil`) and DEL.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(v)) return false;
  // The resolved URL must stay on the same origin.
  try {
    const base = 'http://same.invalid';
    return new URL(v, base).origin === base;
  } catch {
    return false;
  }
}
