/**
 * The process's log: pino, one JSON object per line on standard error (time, level, msg, and an error's message and
 * stack under `err`), so it can be collected as it is. Standard output stays for what commands answer (`user create
 * --json`, reports), which scripts read. LOG_LEVEL sets the threshold (src/config.ts); tests and tools leave it at
 * info.
 */
import { pino } from 'pino';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const logger = pino(
  { base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime },
  pino.destination({ fd: 2, sync: true }),
);

/**
 * The `(message, detail)` callback the projector, the lease service and the API are given: an Error in `detail` is
 * logged as a warning with its stack, any other detail under `detail`.
 */
export function logLine(message: string, detail?: unknown): void {
  if (detail instanceof Error) logger.warn({ err: detail }, message);
  else if (detail === undefined || detail === '') logger.info(message);
  else logger.info({ detail }, message);
}
