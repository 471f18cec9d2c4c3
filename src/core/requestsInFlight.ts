/**
 * The requests in progress that may write, as the HTTP edge announces them (src/app.ts): when each started, which
 * bounds its read-your-writes wait (Site.settle), and how far its write got, which its answer reports when a
 * dependency fails (src/http/outage.ts). Requests are told apart by the `requestId` their events' metadata carry.
 */
import type { Clock } from '../ports/clock';
import type { EventStore } from '../ports/eventStore';
import { isDependencyUnavailable } from '../ports/unavailable';

/** What is known of one request that may write while it is served. */
export interface RequestInFlight {
  readonly started: number;
  /** The highest position appended on its behalf so far; 0 while nothing is. */
  readonly appended: number;
  /** The highest position it waited to see (`settle`): its write was complete up to there. 0 while it has not. */
  readonly settled: number;
  /** An append on its behalf failed without saying whether it was written. */
  readonly uncertain: boolean;
  /** The request has been answered: forget it. */
  end(): void;
}

export interface RequestsInFlight {
  /**
   * Starts following the request `requestId` (its events' metadata carry that id). Null when a request of that id
   * is already being followed (a client-chosen X-Request-Id used twice at once): its appends could not be told apart.
   */
  begin(requestId: string): RequestInFlight | null;
}

interface Followed {
  started: number;
  appended: number;
  settled: number;
  uncertain: boolean;
  positions: number[];
}

/**
 * The requests in progress that may write, and the store that tells them their appends: each append's position goes
 * to the request named by its metadata's `requestId`, while that request is followed.
 */
export class RequestTracker implements RequestsInFlight {
  private readonly byId = new Map<string, Followed>();
  /** Positions appended by followed requests, to the request (what `settle` counts its bound from). */
  private readonly byPosition = new Map<number, Followed>();

  constructor(private readonly clock: Clock) {}

  begin(requestId: string): RequestInFlight | null {
    if (this.byId.has(requestId)) return null;
    const entry: Followed = { started: this.clock.now(), appended: 0, settled: 0, uncertain: false, positions: [] };
    this.byId.set(requestId, entry);
    let ended = false;
    return {
      started: entry.started,
      get appended() {
        return entry.appended;
      },
      get settled() {
        return entry.settled;
      },
      get uncertain() {
        return entry.uncertain;
      },
      end: () => {
        if (ended) return;
        ended = true;
        this.byId.delete(requestId);
        for (const position of entry.positions) this.byPosition.delete(position);
      },
    };
  }

  /** The start of the request that appended `position`, if one in progress did; noted as its write being complete. */
  settling(position: number): number | undefined {
    const entry = this.byPosition.get(position);
    if (!entry) return undefined;
    entry.settled = Math.max(entry.settled, position);
    return entry.started;
  }

  /** The store, its appends told to the request they were made for. */
  follow(store: EventStore): EventStore {
    return {
      ...store,
      appendToStream: async (streamId, events, options) => {
        const requestId = events[0]?.metadata.requestId;
        let result: Awaited<ReturnType<EventStore['appendToStream']>>;
        try {
          result = await store.appendToStream(streamId, events, options);
        } catch (error) {
          const entry = requestId === undefined ? undefined : this.byId.get(requestId);
          if (entry && isDependencyUnavailable(error) && error.outcomeUnknown) entry.uncertain = true;
          throw error;
        }
        const entry = requestId === undefined ? undefined : this.byId.get(requestId);
        if (entry) {
          entry.appended = Math.max(entry.appended, result.position);
          entry.positions.push(result.position);
          this.byPosition.set(result.position, entry);
        }
        return result;
      },
    };
  }
}
