/**
 * Per-key throttle: at most one call per `windowMs` per key, with one trailing call so the last change is
 * never dropped. Keys are bounded: past `maxKeys` the least recently used idle keys are forgotten (which only
 * lets their next call through at once).
 */
export function createThrottle<T>(
  send: (value: T) => void,
  opts: { windowMs: number; maxKeys: number },
): { call(key: string, value: T): void; size(): number } {
  const last = new Map<string, { at: number; pending: boolean }>();
  const touch = (key: string, s: { at: number; pending: boolean }) => {
    last.delete(key);
    last.set(key, s);
    if (last.size <= opts.maxKeys) return;
    for (const [k, v] of last) {
      if (last.size <= opts.maxKeys) break;
      if (!v.pending) last.delete(k);
    }
  };
  return {
    call(key, value) {
      const now = Date.now();
      const s = last.get(key);
      if (!s || s.at <= now - opts.windowMs) {
        touch(key, { at: now, pending: false });
        send(value);
        return;
      }
      if (s.pending) return;
      s.pending = true;
      setTimeout(
        () => {
          touch(key, { at: Date.now(), pending: false });
          send(value);
        },
        s.at + opts.windowMs - now,
      ).unref?.();
    },
    size: () => last.size,
  };
}
