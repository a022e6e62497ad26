import { writeFileSync } from 'node:fs';
import { setPriority } from 'node:os';

/**
 * Names and (optionally) lowers the priority of the calling thread, for `top -H`, /proc and the
 * scheduler. Linux keeps the name (15 bytes) and nice per thread; elsewhere, or when not permitted,
 * the thread keeps the process's.
 */
export function tuneThread(name: string, nice = 0): void {
  try {
    writeFileSync('/proc/thread-self/comm', name.slice(0, 15));
  } catch {
    // not Linux
  }
  if (!nice) return;
  try {
    setPriority(nice); // pid 0 = this thread on Linux
  } catch {
    // not permitted
  }
}
