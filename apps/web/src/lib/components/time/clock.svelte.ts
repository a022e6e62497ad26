/**
 * A clock on the server's time, ticking every second while the component lives: ages ("12s ago") and
 * STALE states keep moving between live updates, and a browser clock that is off does not skew them.
 * `serverNow` reads the server's time at the last load (it is re-read when the load data changes).
 */
export function serverClock(serverNow: () => number): { readonly now: number } {
  const skew = $derived(serverNow() - Date.now());
  let clock = $state(Date.now());
  $effect(() => {
    const t = setInterval(() => (clock = Date.now()), 1000);
    return () => clearInterval(t);
  });
  return {
    get now() {
      return clock + skew;
    },
  };
}
