/** Compact age of a span in ms: "4s", "3m", "2h", "5d". */
export function age(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86_400)}d`;
}

/** Human "3m ago" from a date or epoch ms. */
export function ago(t: Date | string | number, now = Date.now()): string {
  const ms = now - new Date(t).getTime();
  return Number.isFinite(ms) ? `${age(ms)} ago` : '—';
}

/** "2026-11-23 08:15:00Z": an instant in UTC, to the second. */
export const utc = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 19) + 'Z';

/** Duration in seconds as "2d 3h", "5m 10s". */
export function duration(sec: number): string {
  if (!Number.isFinite(sec) || sec < 0) return '—';
  const d = Math.floor(sec / 86_400);
  const h = Math.floor((sec % 86_400) / 3600);
  const m = Math.floor((sec % 3600) / 60);
  const s = Math.floor(sec % 60);
  if (d) return `${d}d ${h}h`;
  if (h) return `${h}h ${m}m`;
  if (m) return `${m}m ${s}s`;
  return `${s}s`;
}

const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
/** Bytes in binary units: "512 B", "1.5 KiB", "120 MiB". */
export function bytes(n: number | null | undefined): string {
  if (n == null || !Number.isFinite(n)) return '—';
  let v = n;
  let i = 0;
  while (Math.abs(v) >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(Math.abs(v) >= 100 || i === 0 ? 0 : 1)} ${units[i]}`;
}

export function num(n: number | null | undefined, digits = 0): string {
  if (n == null || !Number.isFinite(n)) return '—';
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

/** A text value the source did not know ('', "NULL" from `cockroach node status` for dead nodes) as "—". */
export const known = (v: string | null | undefined): string =>
  v == null || v.trim() === '' || v.trim().toUpperCase() === 'NULL' ? '—' : v;
