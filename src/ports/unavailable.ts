/**
 * A dependency (the event store, the read model, the media store) did not answer in time or could not be reached. Adapters throw it
 * in place of their client's connection errors and timeouts, so the HTTP edge can answer 503 with `Retry-After`
 * (src/http/outage.ts) instead of a 500, and callers can tell an outage from a fault of their own.
 */
export type Dependency = 'event store' | 'read model' | 'media store';

export class DependencyUnavailableError extends Error {
  override readonly name = 'DependencyUnavailableError';
  /**
   * True when an append failed in a way that leaves open whether it was written (its answer was lost, or did not
   * come in time): the events may be in the log. False when nothing was written, or the call was not an append.
   */
  readonly outcomeUnknown: boolean;

  constructor(
    readonly dependency: Dependency,
    message: string,
    options: { cause?: unknown; outcomeUnknown?: boolean } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.outcomeUnknown = options.outcomeUnknown ?? false;
  }
}

export const isDependencyUnavailable = (error: unknown): error is DependencyUnavailableError =>
  error instanceof DependencyUnavailableError;

/**
 * `work`, or a DependencyUnavailableError made by `onTimeout` once `ms` have passed without an answer (the work
 * itself is not cancelled: the caller stops waiting for it). `ms` of 0 or less waits without bound.
 */
export function withDeadline<T>(work: Promise<T>, ms: number, onTimeout: () => DependencyUnavailableError): Promise<T> {
  if (!(ms > 0) || !Number.isFinite(ms)) return work;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  // A late failure of the abandoned work is nobody's to handle.
  work.catch(() => undefined);
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
