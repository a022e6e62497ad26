import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { loadMallocTrim, startMallocTrim } from './malloc-trim';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const anonMb = () => Number(/RssAnon:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]) / 1024;

/** ~130 MB of 64 KiB buffers (each its own malloc), every other one freed: half the heap is holes. */
function fragment(): Buffer[] {
  const bufs: (Buffer | null)[] = [];
  for (let i = 0; i < 2000; i++) bufs.push(Buffer.allocUnsafeSlow(64 * 1024 + i).fill(1));
  for (let i = 0; i < bufs.length; i += 2) bufs[i] = null;
  gc();
  return bufs.filter((b): b is Buffer => b !== null);
}

describe('malloc trim', () => {
  it('gives the holes glibc keeps after frees back to the OS', async () => {
    const trim = loadMallocTrim();
    if (typeof trim === 'string') throw new Error(`malloc_trim not available here: ${trim}`);
    const base = anonMb();
    const live = fragment();
    const kept = anonMb() - base;
    // glibc keeps the freed half resident: only the top of a heap is returned on free.
    expect(kept).toBeGreaterThan(100);
    // V8 frees collected buffers' memory on a background thread, soon after the collection: trim again
    // until that happened (without a trim nothing of it is released, however long this waits).
    let released = 0;
    for (let i = 0; i < 40 && released <= 40; i++) {
      await new Promise<void>((resolve) => trim.async(0, () => resolve()));
      released = base + kept - anonMb();
      if (released <= 40) await new Promise((r) => setTimeout(r, 50));
    }
    expect(released).toBeGreaterThan(40);
    expect(live.every((b) => b[0] === 1 && b.at(-1) === 1)).toBe(true); // live blocks untouched
  });

  it('trims on its timer until stopped; 0 = never', async () => {
    const base = anonMb();
    const live = fragment();
    const before = anonMb();
    expect(startMallocTrim(0, () => {})).toBeTypeOf('function');
    await new Promise((r) => setTimeout(r, 200));
    expect(anonMb()).toBeGreaterThan(before - 20); // nothing trimmed
    const stop = startMallocTrim(50, (msg) => {
      throw new Error(msg);
    });
    for (let i = 0; i < 40 && before - anonMb() <= 40; i++) await new Promise((r) => setTimeout(r, 50));
    stop();
    expect(before - anonMb()).toBeGreaterThan(40);
    expect(anonMb() - base).toBeLessThan(before - base);
    expect(live).toHaveLength(1000);
  });
});
