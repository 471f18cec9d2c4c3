/**
 * The event-store port. It is modelled on EventStoreDB so that the EventStoreDB adapter is a thin mapping:
 * named streams with 0-based revisions, optimistic appends with an expected state, stream and global reads
 * in both directions, and a catch-up subscription to the global log.
 *
 * Revisions and positions are plain numbers here (safe up to 2^53); the EventStoreDB adapter maps them to
 * and from bigint at its edge.
 */

/** Who did it, on behalf of which request, and when. Every event carries it. */
export interface EventMetadata {
  /** The acting user id, or null for the system (scheduler, CLI bootstrap). */
  userId: number | null;
  /** Correlates every event appended while serving one request or command. */
  requestId: string;
  /** ISO 8601 UTC time the command was decided at (from the clock port, never from domain code). */
  at: string;
  [extra: string]: unknown;
}

export interface NewEvent<Data = unknown> {
  type: string;
  data: Data;
  metadata: EventMetadata;
  /** A deterministic id makes a retried append idempotent on stores that honour it; generated when absent. */
  id?: string;
}

export interface RecordedEvent<Data = unknown> {
  id: string;
  streamId: string;
  /** 0-based position of the event inside its stream. */
  revision: number;
  /** 1-based position in the global log; strictly increasing in commit order. */
  position: number;
  type: string;
  data: Data;
  metadata: EventMetadata;
}

/**
 * What the writer believes about the stream before appending:
 * - `no_stream`: the stream must not exist yet;
 * - `stream_exists`: it must exist (at any revision);
 * - `any`: no check;
 * - a number: the revision of the stream's last event must be exactly this.
 */
export type ExpectedRevision = 'no_stream' | 'stream_exists' | 'any' | number;

export interface AppendResult {
  /** The revision of the last event appended; pass it as the next expected revision. */
  nextExpectedRevision: number;
  /** The global position of the last event appended (what read-your-writes waits for). */
  position: number;
}

/** A typed optimistic-concurrency conflict: the stream was not in the expected state. */
export class WrongExpectedRevisionError extends Error {
  override readonly name = 'WrongExpectedRevisionError';
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    /** The stream's actual last revision, or `no_stream` when it does not exist. */
    readonly actual: number | 'no_stream',
  ) {
    super(`Append to "${streamId}" expected ${String(expected)} but the stream is at ${String(actual)}`);
  }
}

export type Direction = 'forwards' | 'backwards';

export interface ReadStreamOptions {
  direction?: Direction;
  /** Inclusive start revision: the first revision read forwards, the last one backwards. Defaults to the start
   * (forwards) or the end (backwards). */
  fromRevision?: number;
  maxCount?: number;
}

export interface ReadAllOptions {
  direction?: Direction;
  /**
   * Inclusive start position, like `fromRevision`: a position the log gave out (an event's), or 0. Positions are only
   * comparable (EventStoreDB's are byte offsets), so `p + 1` names no event: read what follows `p` with `after`.
   */
  fromPosition?: number;
  /**
   * Exclusive start, forwards only (instead of `fromPosition`): the events after this position, as a subscription
   * checkpoint would deliver them; 0 is before the first event. Past the head it reads nothing.
   */
  after?: number;
  maxCount?: number;
}

/**
 * A read named a position that no event of this log starts at, other than one past its head (EventStoreDB refuses
 * a position inside a record: "Invalid position"). A checkpoint that is not one of the log's positions was taken
 * from another log, or from this one before it was restored from an older backup.
 */
export class PositionNotInLogError extends Error {
  override readonly name = 'PositionNotInLogError';
  constructor(
    readonly position: number,
    detail?: string,
  ) {
    super(`Position ${position} is not the position of an event of this log${detail ? ` (${detail})` : ''}`);
  }
}

export interface SubscribeToAllOptions {
  /** Exclusive checkpoint: delivery starts with the first event after this position. Omit to start at the beginning. */
  after?: number;
  /** Called with consecutive, non-empty batches in log order. The next batch is not delivered before it resolves. */
  onEvents(events: RecordedEvent[]): Promise<void> | void;
  /** Called once, when the subscription has delivered everything that existed when it started. */
  onCaughtUp?(): void;
  /** Called when delivery fails (a handler threw); the subscription is closed afterwards. */
  onError?(error: unknown): void;
  /** Largest batch delivered at once. */
  maxBatchSize?: number;
  /**
   * The event types the subscriber acts on. An adapter may then leave events of other types out of a batch, never
   * reading or parsing them, except the batch's last event, which is always delivered whatever its type: a batch's
   * last position stays where the subscriber has read to. Others deliver every event.
   */
  types?: readonly string[];
}

export interface Subscription {
  close(): Promise<void>;
}

export interface EventStore {
  appendToStream(
    streamId: string,
    events: NewEvent[],
    options: { expectedRevision: ExpectedRevision },
  ): Promise<AppendResult>;
  /** Reads a stream; an absent stream reads as an empty array. */
  readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  /** Reads the global log. Throws PositionNotInLogError for a start position that names no event of the log. */
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;
  /** Catch-up subscription: replays the log after the checkpoint, then delivers new events as they are appended,
   * including events appended by other processes sharing the store. */
  subscribeToAll(options: SubscribeToAllOptions): Subscription;
  /** The position of the last event in the global log (0 when the log is empty). */
  headPosition(): Promise<number>;
  close(): Promise<void>;
}
