/**
 * Gives the memory glibc's malloc keeps after a free back to the OS, every `ms`, as the JVM's
 * `-XX:TrimNativeHeapInterval` does. glibc returns only the free top of a heap; what is freed between
 * live blocks stays resident, and under load most of an arena can be such free pages. `malloc_trim(0)`
 * releases the free pages anywhere in every arena. It runs on a libuv
 * thread (koffi's async call), so the event loop does not wait for it. Linux with glibc only; elsewhere
 * (musl, macOS) it does nothing.
 */
import { createRequire } from 'node:module';
import type { KoffiFunc } from 'koffi';

type TTrim = KoffiFunc<(pad: number) => number>;

/** `malloc_trim` from glibc, or why it is not available. */
export function loadMallocTrim(): TTrim | string {
  if (process.platform !== 'linux') return `not Linux (${process.platform})`;
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  if (!report?.header?.glibcVersionRuntime) return 'not glibc';
  try {
    // Loaded here, not imported: a platform without koffi's prebuilt binary gets the reason, not a crash.
    const koffi = createRequire(import.meta.url)('koffi') as typeof import('koffi');
    return koffi.load('libc.so.6').func('int malloc_trim(size_t pad)') as TTrim;
  } catch (err) {
    return (err as Error).message;
  }
}

/** Trims every `ms` (0 = never); returns stop. One trim at a time. */
export function startMallocTrim(ms: number, log: (msg: string) => void): () => void {
  if (ms <= 0) return () => {};
  const trim = loadMallocTrim();
  if (typeof trim === 'string') {
    log(`malloc trim off: ${trim}`);
    return () => {};
  }
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    trim.async(0, () => (running = false));
  }, ms);
  timer.unref();
  return () => clearInterval(timer);
}
