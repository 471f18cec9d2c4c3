/**
 * An outage of a dependency (DependencyUnavailableError from an adapter: the event store, the read model or the media store did not
 * answer in time, or could not be reached) as the HTTP answer: 503 with `Retry-After`, in WordPress's error shape,
 * never a 500. A proxy in front (deploy/nginx.conf) tries another node for a 503 of an idempotent request.
 *
 * A write says in the error's data how far it got, so a client knows whether to send it again:
 * - `outcome: "committed"` (with `position`, the log position of its last event): it is in the log, complete (it
 *   got as far as waiting to see itself in the read model), but the read model could not show it yet; sending it
 *   again would make the change twice;
 * - `outcome: "unknown"`: an append of its own got no answer, or none in time, so it may be in the log;
 * - no `outcome`: the change was not made (an append of its own may have been: a name it claimed, which a retry
 *   leaves aside).
 */
import { restError } from '../rest/errors';
import type { RestError } from '../rest/errors';
import type { DependencyUnavailableError } from '../ports/unavailable';

/** What `Retry-After` says after an outage: long enough for a reconnection, short enough not to give up on a blip. */
export const OUTAGE_RETRY_AFTER_SECONDS = 5;

export const OUTAGE_HEADERS: Readonly<Record<string, string>> = { 'Retry-After': String(OUTAGE_RETRY_AFTER_SECONDS) };

/** How far a write got, as the site followed it (src/core/requestsInFlight.ts). */
export interface WriteProgress {
  readonly settled: number;
  readonly uncertain: boolean;
}

/**
 * The answer to a request that failed for `error`. `write` is how far the request got, when it was followed (a
 * request that may write); without it, only the error says whether an append's outcome is unknown.
 */
export function outageError(error: DependencyUnavailableError, write: WriteProgress | null): RestError {
  const what = `the site's ${error.dependency}`;
  const data = { dependency: error.dependency };
  const outcome = write === null ? (error.outcomeUnknown ? 'unknown' : null) : outcomeOf(write);
  if (outcome === 'committed') {
    return restError(
      'rest_service_unavailable',
      `The change was saved, but ${what} is unavailable, so it cannot be shown yet. Do not send it again.`,
      503,
      { ...data, outcome, position: write!.settled },
    );
  }
  if (outcome === 'unknown') {
    return restError(
      'rest_service_unavailable',
      `The change may or may not have been saved: ${what} did not answer in time. Check before sending it again.`,
      503,
      { ...data, outcome },
    );
  }
  return restError(
    'rest_service_unavailable',
    `${what.charAt(0).toUpperCase()}${what.slice(1)} is unavailable. Please try again shortly.`,
    503,
    data,
  );
}

/** Unknown: an append of its own had no answer. Committed: it got to wait for its last append to be seen. */
function outcomeOf(write: WriteProgress): 'committed' | 'unknown' | null {
  if (write.uncertain) return 'unknown';
  return write.settled > 0 ? 'committed' : null;
}
