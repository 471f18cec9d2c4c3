/**
 * The in-memory transaction log behind the test EventStoreDB server, with the server's rules for what the client can
 * observe:
 *
 * - Every event is a record in one log. Its position is the byte offset where its record starts (the commit and the
 *   prepare position are that same offset, as for every event a gRPC append writes), and the next record starts
 *   after its length, so positions have gaps and are only comparable, never contiguous.
 * - A forward read of `$all` from a position includes the event that starts there; a backward read from a position
 *   includes only events that end at or before it, so it excludes the event starting there.
 * - Reading `$all` from a position inside a record is an invalid position, except past the last event (the node
 *   answers "nothing yet" there).
 * - Appends follow the node's commit check: the expected revision is compared with the stream's last revision, and
 *   a write whose event ids already sit where the events would go is acknowledged again without writing (the
 *   idempotent retry), while a partial match is a wrong expected version.
 */
import { randomUUID } from 'node:crypto';

export type Expected =
  | { kind: 'any' }
  | { kind: 'no_stream' }
  | { kind: 'stream_exists' }
  | { kind: 'revision'; revision: number };

export interface ProposedEvent {
  id: string;
  type: string;
  contentType: string;
  data: Uint8Array;
  metadata: Uint8Array;
}

export interface StoredEvent extends ProposedEvent {
  streamId: string;
  revision: number;
  /** Where the record starts: the event's commit and prepare position. */
  position: number;
  /** Where the next record starts. */
  end: number;
  /** .NET ticks (100 ns) since the Unix epoch, as the node reports `created`. */
  createdTicks: string;
}

export type AppendOutcome =
  | { kind: 'written'; lastRevision: number; position: number }
  /** An earlier append with these event ids already wrote them; nothing new was written. */
  | { kind: 'already_written'; lastRevision: number }
  /** `current` is the stream's last revision, -1 when the stream does not exist. */
  | { kind: 'wrong_expected_version'; current: number };

export class InvalidPositionError extends Error {}

/** Where the first event lands: a fresh node's log starts with its own records (chunk header, epoch). */
const FIRST_EVENT_POSITION = 1_024;
/** Bytes a record takes besides its variable parts: enough to make gaps between positions uneven and obvious. */
const RECORD_OVERHEAD = 96;

const utf8Length = (text: string) => Buffer.byteLength(text, 'utf8');

export class TransactionLog {
  readonly events: StoredEvent[] = [];
  private readonly streams = new Map<string, StoredEvent[]>();
  private end = FIRST_EVENT_POSITION;
  private waiters: Array<() => void> = [];

  streamEvents(streamId: string): readonly StoredEvent[] | undefined {
    return this.streams.get(streamId);
  }

  lastEvent(): StoredEvent | undefined {
    return this.events[this.events.length - 1];
  }

  append(streamId: string, expected: Expected, proposed: ProposedEvent[]): AppendOutcome {
    const stream = this.streams.get(streamId) ?? [];
    const current = stream.length - 1;
    const ids = proposed.map((event) => event.id);

    // The revisions the ids would already occupy if this is a retry, found as the node finds them.
    let retryFrom: number | undefined;
    switch (expected.kind) {
      case 'any':
      case 'stream_exists': {
        if (expected.kind === 'stream_exists' && current < 0) return { kind: 'wrong_expected_version', current };
        const first = ids.length > 0 ? stream.findIndex((event) => event.id === ids[0]) : -1;
        if (first >= 0) retryFrom = first;
        break;
      }
      case 'no_stream':
      case 'revision': {
        const expectedRevision = expected.kind === 'no_stream' ? -1 : expected.revision;
        if (expectedRevision > current) return { kind: 'wrong_expected_version', current };
        if (expectedRevision < current) retryFrom = expectedRevision + 1;
        break;
      }
    }
    if (retryFrom !== undefined) {
      const matches = ids.length > 0 && ids.every((id, i) => stream[retryFrom! + i]?.id === id);
      if (!matches) return { kind: 'wrong_expected_version', current };
      return { kind: 'already_written', lastRevision: retryFrom + ids.length - 1 };
    }
    if (proposed.length === 0) return { kind: 'already_written', lastRevision: current };

    const createdTicks = (BigInt(Date.now()) * 10_000n).toString();
    for (const event of proposed) {
      const length =
        RECORD_OVERHEAD + utf8Length(streamId) + utf8Length(event.type) + event.data.length + event.metadata.length;
      const stored: StoredEvent = {
        ...event,
        streamId,
        revision: stream.length,
        position: this.end,
        end: this.end + length,
        createdTicks,
      };
      this.end = stored.end;
      stream.push(stored);
      this.events.push(stored);
    }
    this.streams.set(streamId, stream);
    this.wakeWaiters();
    return { kind: 'written', lastRevision: stream.length - 1, position: stream[stream.length - 1]!.position };
  }

  /** Index of the first event at or after `position` for a forward read. */
  forwardStart(position: number): number {
    const index = this.firstIndexAtOrAfter(position);
    const last = this.lastEvent();
    const isRecordStart = this.events[index]?.position === position;
    if (!isRecordStart && last !== undefined && position >= FIRST_EVENT_POSITION && position <= last.position) {
      throw new InvalidPositionError(`${position} is inside a record`);
    }
    return index;
  }

  /** Index one past the last event that ends at or before `position`, for a backward read. */
  backwardEnd(position: number): number {
    if (position >= this.end) return this.events.length;
    const index = this.firstIndexAtOrAfter(position);
    const isBoundary = this.events[index]?.position === position || position <= FIRST_EVENT_POSITION;
    if (!isBoundary) throw new InvalidPositionError(`${position} is inside a record`);
    return index;
  }

  /** Index of the first event strictly after `position` (a subscription's exclusive checkpoint). */
  firstIndexAfter(position: number): number {
    return this.firstIndexAtOrAfter(position + 1);
  }

  /** Resolves at the next append, or when `signal` aborts. */
  nextAppend(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal.aborted) return resolve();
      const done = () => {
        signal.removeEventListener('abort', done);
        this.waiters = this.waiters.filter((waiter) => waiter !== done);
        resolve();
      };
      this.waiters.push(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  /**
   * The log as a backup taken when it held its first `count` events has it: the later events are gone, and the next
   * record starts where that backup's next one would have (so a later append may land where a lost event started).
   */
  restoreBackup(count: number): void {
    const kept = this.events.slice(0, count);
    this.events.length = 0;
    this.events.push(...kept);
    this.streams.clear();
    for (const event of kept) {
      const stream = this.streams.get(event.streamId) ?? [];
      stream.push(event);
      this.streams.set(event.streamId, stream);
    }
    this.end = kept[kept.length - 1]?.end ?? FIRST_EVENT_POSITION;
  }

  /** Appends by the node itself (statistics, settings, projections): `$`-typed events in `$`-streams. */
  appendSystemEvent(streamId: string, type: string, data: object = {}): StoredEvent {
    const outcome = this.append(streamId, { kind: 'any' }, [
      {
        id: randomUUID(),
        type,
        contentType: 'application/json',
        data: Buffer.from(JSON.stringify(data)),
        metadata: new Uint8Array(),
      },
    ]);
    if (outcome.kind !== 'written') throw new Error('a system append cannot conflict');
    return this.lastEvent()!;
  }

  private firstIndexAtOrAfter(position: number): number {
    let low = 0;
    let high = this.events.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.events[middle]!.position < position) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  private wakeWaiters() {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}
