/**
 * The page's time zone (one for axes, tooltips, events and the custom range): the browser's by default,
 * UTC with `?tz=utc` (remembered in localStorage
 * for pages opened without `?tz=`). Server renders and the first client render use UTC; `syncZone` (called from an
 * effect by the components that show times) switches to the browser's zone once hydrated.
 */
import { parseZoneMode, zoneAbbrev, zoneOf, type TZoneMode } from './time';

const state = $state({ mode: 'local' as TZoneMode, browser: 'UTC' });

export const zone = {
  get mode(): TZoneMode {
    return state.mode;
  },
  /** IANA name of the zone in use ("UTC", "America/New_York"). */
  get name(): string {
    return zoneOf(state.mode, state.browser);
  },
  /** The browser's own zone (what "Local" means). */
  get browser(): string {
    return state.browser;
  },
  /** Whether ECharts should draw in UTC (else it uses the browser's zone, which is `name`). */
  get utc(): boolean {
    return zoneOf(state.mode, state.browser) === 'UTC';
  },
  /** "EST", "UTC": the zone's short name at an instant. */
  abbrev(ms: number): string {
    return zoneAbbrev(ms, zoneOf(state.mode, state.browser));
  },
};

const KEY = 'clusterscope.tz';

/**
 * Reads the browser's zone and the mode: `?tz=` when the URL has it (remembered as the preference), else
 * the remembered preference, else local. Call from an `$effect` (client only).
 */
export function syncZone(url: URL): void {
  state.browser = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  const asked = url.searchParams.get('tz');
  let saved: string | null = null;
  try {
    if (asked) localStorage.setItem(KEY, parseZoneMode(asked));
    else saved = localStorage.getItem(KEY);
  } catch {
    // Storage disabled: the URL alone decides.
  }
  state.mode = parseZoneMode(asked ?? saved);
}
