/**
 * The audit log as a live feed (`GET /audit/v1/stream`, Server-Sent Events). Each open feed is one catch-up
 * subscription to the global log (the event-store port's own, which every adapter implements and which hears
 * other processes sharing the store): it replays the log after the client's position batch by batch, then follows
 * the log as it grows. A batch is not asked for before the previous one was taken by the client (the readable's
 * buffer drained), so memory stays bounded by one batch whatever the backlog or the client's speed.
 *
 * Every event is one SSE message: `id:` its log position (what a client sends back as `Last-Event-ID` to resume
 * after it), `event:` its type, `data:` the audit entry as `/audit/v1/events` shows it (secrets redacted).
 * A comment line is sent every heartbeat so that idle connections are neither closed by proxies nor left open
 * once the client is gone. Feeds are bounded per user and in all; each ends, its subscription and timer gone, when
 * its client disconnects.
 */
import { Readable } from 'node:stream';
import type { EventStore, RecordedEvent, Subscription } from '../../ports/eventStore';
import { auditEntry, matches } from './log';
import type { AuditFilter } from './log';
import { logger } from '../../logger';

export interface AuditStreamLimits {
  /** Milliseconds between two heartbeat comments. */
  heartbeatMs: number;
  /** Most feeds one user may hold open at once. */
  perUser: number;
  /** Most feeds open at once in this process. */
  total: number;
}

export const DEFAULT_AUDIT_STREAM_LIMITS: AuditStreamLimits = { heartbeatMs: 15_000, perUser: 4, total: 100 };

/** Events asked of the store at once, replaying or following. */
const BATCH = 100;
/** How long an EventSource waits before reconnecting, sent first on every feed. */
const RETRY_MS = 2000;

export interface AuditFeedRequest {
  userId: number;
  filter: AuditFilter;
  /** Exclusive: the first event sent is the first after this position. */
  after: number;
  /** False: end the feed once everything up to the head when it opened was sent. */
  follow: boolean;
}

/** Why a feed could not be opened. */
export type Refusal = 'per_user' | 'total';

/** One SSE message for an event; the type is kept to one line whatever it holds (JSON never has a raw line break). */
export function sseMessage(event: RecordedEvent): string {
  return `id: ${event.position}\nevent: ${event.type.replace(/[\r\n]/g, ' ')}\ndata: ${JSON.stringify(auditEntry(event))}\n\n`;
}

export class AuditStreams {
  private readonly perUser = new Map<number, number>();
  private openCount = 0;

  constructor(
    private readonly store: EventStore,
    readonly limits: AuditStreamLimits,
  ) {}

  /** Feeds open now, in all. */
  get open(): number {
    return this.openCount;
  }

  /** The feed as a readable of SSE text, or why it is refused. Destroying the readable closes everything it holds. */
  openFeed(request: AuditFeedRequest): Readable | Refusal {
    const held = this.perUser.get(request.userId) ?? 0;
    if (held >= this.limits.perUser) return 'per_user';
    if (this.openCount >= this.limits.total) return 'total';
    this.perUser.set(request.userId, held + 1);
    this.openCount++;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.openCount--;
      const left = (this.perUser.get(request.userId) ?? 1) - 1;
      if (left === 0) this.perUser.delete(request.userId);
      else this.perUser.set(request.userId, left);
    };

    // Resolved when the client has taken what was pushed (or the feed ended): the next batch waits for it.
    let demand: (() => void) | null = null;
    let ended = false;
    let subscription: Subscription | null = null;
    let heartbeat: NodeJS.Timeout | undefined;
    const stop = (): Promise<void> => {
      ended = true;
      clearInterval(heartbeat);
      demand?.();
      const closing = subscription?.close() ?? Promise.resolve();
      subscription = null;
      return closing.finally(release);
    };
    const feed = new Readable({
      read() {
        const wake = demand;
        demand = null;
        wake?.();
      },
      destroy(error, callback) {
        stop().then(
          () => callback(error),
          () => callback(error),
        );
      },
    });
    const send = async (text: string): Promise<void> => {
      if (ended) return;
      if (!feed.push(text)) await new Promise<void>((resolve) => (demand = resolve));
    };
    const finish = () => {
      if (ended) return;
      void stop();
      feed.push(null);
    };

    feed.push(`retry: ${RETRY_MS}\n\n`);
    heartbeat = setInterval(() => {
      if (!ended) feed.push(': heartbeat\n\n');
    }, this.limits.heartbeatMs);
    const { filter } = request;
    subscription = this.store.subscribeToAll({
      after: request.after,
      maxBatchSize: BATCH,
      types: filter.types && filter.types.length > 0 ? filter.types : undefined,
      onEvents: async (events) => {
        for (const event of events) {
          if (ended) return;
          if (matches(event, filter)) await send(sseMessage(event));
        }
      },
      onCaughtUp: () => {
        // Delivered after the batch that reached the head: a feed that does not follow ends here.
        if (!request.follow) queueMicrotask(finish);
      },
      onError: (error) => {
        logger.warn({ err: error }, 'audit stream: the subscription failed');
        finish();
      },
    });
    return feed;
  }
}
