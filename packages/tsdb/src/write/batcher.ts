/** What the batcher needs of an item to decide when to flush: its rows and its newest sample (epoch ms). */
export interface TBatchSize {
  rows: number;
  newest?: number | null;
}

export interface TBatcherOptions<T> {
  /** Longest time an item waits for others to coalesce with (ms). */
  maxDelayMs: number;
  /** Flush at once when this many rows are pending. */
  maxRows: number;
  /** Least time between the starts of two busy rounds (ms); 0: off. */
  minRoundMs: number;
  /** How many items a round must carry for the next one to wait for `minRoundMs`. */
  busyBatches: number;
  /** Writes one round; rounds never overlap. Items added meanwhile go into the next round. */
  flushRound(round: T[]): Promise<void>;
}

export interface TBatcher<T> {
  add(item: T, size: TBatchSize): void;
  /** Writes every pending item, without waiting for `minRoundMs`. */
  flush(): Promise<void>;
  /** Like flush, and every later round starts at once. */
  close(): Promise<void>;
  readonly closed: boolean;
}

/** Everything the batcher remembers between calls. */
interface TState<T> {
  pending: T[];
  pendingRows: number;
  /** The `maxDelayMs` timer of the first item of a round. */
  timer: NodeJS.Timeout | null;
  /** The drain loop while it runs. */
  running: Promise<void> | null;
  /** Start of the last busy round (0: the last round was not busy). */
  lastRound: number;
  /** A late item (older than twice `minRoundMs`) waits: the next round starts at once. */
  lateWaiting: boolean;
  /** Ends the pause before the next round early. */
  wake: (() => void) | null;
  /** Calls of flush() under way. */
  flushing: number;
  closed: boolean;
}

/**
 * Coalesces items into rounds. An item waits at most `maxDelayMs` for others; a round follows a busy one
 * (at least `busyBatches` items) no sooner than `minRoundMs` after its start, unless rows reach `maxRows`,
 * a late item arrives, or flush or close is called.
 */
export function createBatcher<T>(opts: TBatcherOptions<T>): TBatcher<T> {
  const s: TState<T> = {
    pending: [],
    pendingRows: 0,
    timer: null,
    running: null,
    lastRound: 0,
    lateWaiting: false,
    wake: null,
    flushing: 0,
    closed: false,
  };
  const wakeUp = () => s.wake?.();
  const clearTimer = () => {
    if (s.timer) clearTimeout(s.timer);
    s.timer = null;
  };
  const pause = (ms: number) =>
    new Promise<void>((r) => {
      const t = setTimeout(r, ms);
      s.wake = () => {
        clearTimeout(t);
        r();
      };
    });

  /** Drains pending in rounds; items arriving during a round coalesce into the next one. */
  const drain = (): Promise<void> => {
    clearTimer();
    if (s.running) return s.running;
    s.running = (async () => {
      try {
        while (s.pending.length > 0) {
          const wait = s.lastRound + opts.minRoundMs - Date.now();
          if (wait > 0 && !s.closed && s.flushing === 0 && !s.lateWaiting && s.pendingRows < opts.maxRows) {
            await pause(wait);
            s.wake = null;
            continue; // re-check: woken early by maxRows, a late item, flush or close
          }
          s.lastRound = s.pending.length >= opts.busyBatches ? Date.now() : 0;
          s.lateWaiting = false;
          const round = s.pending;
          s.pending = [];
          s.pendingRows = 0;
          await opts.flushRound(round);
        }
      } finally {
        s.running = null;
      }
    })();
    return s.running;
  };

  const drainAll = async () => {
    wakeUp();
    while (s.pending.length > 0 || s.running) await drain();
  };

  return {
    add(item, size) {
      s.pending.push(item);
      s.pendingRows += size.rows;
      if (s.pendingRows >= opts.maxRows) {
        wakeUp();
        void drain();
        return;
      }
      if (opts.minRoundMs > 0 && (size.newest ?? Infinity) < Date.now() - 2 * opts.minRoundMs) {
        s.lateWaiting = true;
        wakeUp();
      }
      if (!s.timer && !s.running) s.timer = setTimeout(() => void drain(), opts.maxDelayMs);
    },
    async flush() {
      s.flushing++;
      try {
        await drainAll();
      } finally {
        s.flushing--;
      }
    },
    async close() {
      s.closed = true;
      await drainAll();
    },
    get closed() {
      return s.closed;
    },
  };
}
