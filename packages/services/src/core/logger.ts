import pino from 'pino';

/** The server's one logger: JSON lines on stderr (`{"level":"warn","time":"…","msg":"…",…}`). */
export type TLogger = Pick<pino.Logger, 'debug' | 'info' | 'warn' | 'error' | 'child'>;

/**
 * Writes synchronously to stderr (or `destination`, for tests), so a line logged just before the process exits is not lost, and levels are
 * names rather than pino's numbers, so the lines read the same to people and to log shippers.
 */
export function createLogger(
  opts: { level?: string; name?: string; destination?: pino.DestinationStream } = {},
): TLogger {
  return pino(
    {
      level: opts.level ?? process.env.LOG_LEVEL ?? 'info',
      base: opts.name ? { name: opts.name } : undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    opts.destination ?? pino.destination({ fd: 2, sync: true }),
  );
}

let fallback: TLogger | undefined;

/** The logger in `deps`, or one process-wide stderr logger for callers that were given none (scripts). */
export function logOf(deps: { log?: TLogger }): TLogger {
  return deps.log ?? (fallback ??= createLogger());
}
