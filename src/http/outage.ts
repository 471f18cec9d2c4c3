/**
 * An outage of a dependency (DependencyUnavailableError from an adapter: the event store or the read model did not
 * answer in time, or could not be reached) as the HTTP answer: 503 with `Retry-After`, in WordPress's error shape,
 * never a 500. A proxy in front (deploy/nginx.conf) tries another node for a 503 of an idempotent request.
 *
 * A write says in the error's data how far it got, so a client knows whether to send it again:
 * - `outcome: "committed"` (with `position`): its events are in the log, but the read model could not show them yet;
 *   sending it again would make the change twice;
 * - `outcome: "unknown"`: an append's answer was lost or late, so its events may or may not be in the log;
 * - no `outcome`: nothing of it was written.
 */
import { restError } from '../rest/errors';
import type { RestError } from '../rest/errors';
import type { DependencyUnavailableError } from '../ports/unavailable';

/** What `Retry-After` says after an outage: long enough for a reconnection, short enough not to give up on a blip. */
export const OUTAGE_RETRY_AFTER_SECONDS = 5;

export const OUTAGE_HEADERS: Readonly<Record<string, string>> = { 'Retry-After': String(OUTAGE_RETRY_AFTER_SECONDS) };

/** The answer to a request that failed for `error`, after its appends reached `committed` (0: none). */
export function outageError(error: DependencyUnavailableError, committed: number): RestError {
  const what = error.dependency === 'event store' ? "The site's event store" : "The site's read model";
  if (error.outcomeUnknown) {
    return restError(
      'rest_service_unavailable',
      `${what} did not confirm the change in time: it may or may not have been saved. Check before sending it again.`,
      503,
      { dependency: error.dependency, outcome: 'unknown' },
    );
  }
  if (committed > 0) {
    return restError(
      'rest_service_unavailable',
      `The change was saved, but ${what.charAt(0).toLowerCase()}${what.slice(1)} is unavailable, so it cannot be shown yet. Do not send it again.`,
      503,
      { dependency: error.dependency, outcome: 'committed', position: committed },
    );
  }
  return restError('rest_service_unavailable', `${what} is unavailable. Please try again shortly.`, 503, { dependency: error.dependency });
}
