/**
 * The embedded event store: one SQLite file (better-sqlite3, WAL), safe to share between processes.
 *
 * Durability: an append's transaction is committed before its promise resolves. In WAL mode with
 * `synchronous=NORMAL` (durability 'process-crash', the default) a commit reaches the OS without an fsync, so a
 * killed process loses nothing it acknowledged, but a power cut or kernel crash may roll back the last commits
 * (the file stays consistent). 'power-loss' uses `synchronous=FULL`: an fsync per commit, which survives power
 * loss at the cost of far fewer appends per second on most disks.
 *
 * Idempotency: see `resultOfRetriedAppend` — re-appending the same event ids right after the same expected
 * revision returns the original append's result instead of a conflict.
 */
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { preparePrivateFile, tightenIfPresent } from '../files/privateFiles';
import { DependencyUnavailableError } from '../../ports/unavailable';
import {
  WrongExpectedRevisionError,
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type RecordedEvent,
} from '../../ports/eventStore';
import {
  assertAppendable,
  resultOfRetriedAppend,
  satisfiesExpectedRevision,
  startCatchUpSubscription,
  startOfRead,
  type CatchUpSubscription,
} from '../eventStoreShared';

export interface SqliteEventStoreOptions {
  file: string;
  /** How often live subscriptions look for events appended by other processes. */
  pollIntervalMs?: number;
  durability?: 'process-crash' | 'power-loss';
  /**
   * How long a writer waits for another process's write transaction (EVENT_STORE_TIMEOUT_MS; default 5 s) before the
   * append fails with DependencyUnavailableError, nothing written. SQLite waits on the calling thread.
   */
  busyTimeoutMs?: number;
}

const DEFAULT_BUSY_TIMEOUT_MS = 5000;

/** SQLite's answers for a database another connection holds locked past the busy timeout. */
const isBusy = (error: unknown) => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
};

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS events (
    position INTEGER PRIMARY KEY,
    stream_id TEXT NOT NULL,
    revision INTEGER NOT NULL,
    id TEXT NOT NULL,
    type TEXT NOT NULL,
    data TEXT NOT NULL,
    metadata TEXT NOT NULL,
    UNIQUE (stream_id, revision)
  ) STRICT;
`;

/**
 * A row as read: the columns in COLUMNS' order. Statements return arrays (better-sqlite3's `raw`), which it makes
 * faster than an object per row; a replay reads every row of the log.
 */
type EventRow = [
  position: number,
  streamId: string,
  revision: number,
  id: string,
  type: string,
  data: string,
  metadata: string,
];

const COLUMNS = 'position, stream_id, revision, id, type, data, metadata';
/** SQLite reads a negative LIMIT as "no limit". */
const NO_LIMIT = -1;

/**
 * A subscription starting at least this many positions behind the head scans the log (a start-up replay, a rebuild):
 * the connection's page cache is kept at SCAN_CACHE_PAGES until it has caught up (see `scans`).
 */
export const SCAN_BEHIND = 1_000;
/** The page cache while a subscription scans: enough for the table's interior pages and the leaf being read. */
export const SCAN_CACHE_PAGES = 16;

const toRecordedEvent = (row: EventRow): RecordedEvent => ({
  id: row[3],
  streamId: row[1],
  revision: row[2],
  position: row[0],
  type: row[4],
  data: JSON.parse(row[5]),
  metadata: JSON.parse(row[6]),
});

/** The SQLite event store, and what it tells of its connection (for tests). */
export interface SqliteEventStore extends EventStore {
  /** The connection's page cache size as SQLite reports it (PRAGMA cache_size: pages, or KiB when negative). */
  pageCacheSize(): number;
}

export function openSqliteEventStore(options: SqliteEventStoreOptions): SqliteEventStore {
  // The log holds drafts, post passwords and password hashes: owner only. SQLite gives the -wal and -shm files it
  // creates the database file's mode; ones left by an earlier run are tightened too.
  const onDisk = options.file !== ':memory:' && options.file !== '';
  if (onDisk) preparePrivateFile(options.file);
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  const db = new Database(options.file, { timeout: busyTimeoutMs });
  db.pragma('journal_mode = WAL');
  if (onDisk) for (const suffix of ['-wal', '-shm']) tightenIfPresent(`${options.file}${suffix}`);
  db.pragma(`synchronous = ${options.durability === 'power-loss' ? 'FULL' : 'NORMAL'}`);
  db.exec(SCHEMA);
  const cacheSize = () => db.pragma('cache_size', { simple: true }) as number;

  /**
   * A scan reads every page of the log once, in order, and none again: SQLite's page cache (16 MB as better-sqlite3
   * builds it) would only fill with pages nobody reads again, each in memory malloc'd afresh. A start-up replay of
   * 10,000 posts took ~3,200 of its ~18,000 page faults there (a 26 MB log), so while any subscription scans, the
   * connection keeps a few pages; the usual size is back once the last scan has caught up or closed.
   */
  const usualCacheSize = cacheSize();
  let scans = 0;
  const scanStarted = () => {
    if (scans++ === 0) db.pragma(`cache_size = ${SCAN_CACHE_PAGES}`);
  };
  const scanEnded = () => {
    if (--scans === 0 && db.open) db.pragma(`cache_size = ${usualCacheSize}`);
  };

  const lastRevision = db
    .prepare<[string], number>('SELECT revision FROM events WHERE stream_id = ? ORDER BY revision DESC LIMIT 1')
    .pluck();
  const insert = db.prepare<[string, number, string, string, string, string]>(
    'INSERT INTO events (stream_id, revision, id, type, data, metadata) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const streamForwards = db
    .prepare<[string, number, number], EventRow>(
      `SELECT ${COLUMNS} FROM events WHERE stream_id = ? AND revision >= ? ORDER BY revision LIMIT ?`,
    )
    .raw();
  const streamBackwards = db
    .prepare<[string, number, number], EventRow>(
      `SELECT ${COLUMNS} FROM events WHERE stream_id = ? AND revision <= ? ORDER BY revision DESC LIMIT ?`,
    )
    .raw();
  const allForwards = db
    .prepare<[number, number], EventRow>(`SELECT ${COLUMNS} FROM events WHERE position >= ? ORDER BY position LIMIT ?`)
    .raw();
  const allBackwards = db
    .prepare<[number, number], EventRow>(
      `SELECT ${COLUMNS} FROM events WHERE position <= ? ORDER BY position DESC LIMIT ?`,
    )
    .raw();
  const head = db.prepare<[], number>('SELECT COALESCE(MAX(position), 0) FROM events').pluck();
  // A subscription that names its types (SubscribeToAllOptions.types): the last position of the next batch of
  // `count` events, then the events of those types up to it and that last one. The others are not read: in a
  // start-up replay they are half the log (name claims, id blocks).
  const batchEnd = db
    .prepare<[number, number], number>(
      'SELECT position FROM events WHERE position > ? ORDER BY position LIMIT 1 OFFSET ?',
    )
    .pluck();
  const typedForwards = db
    .prepare<{ after: number; end: number; types: string }, EventRow>(
      `SELECT ${COLUMNS} FROM events WHERE position > @after AND position <= @end AND (position = @end OR type IN (SELECT value FROM json_each(@types))) ORDER BY position`,
    )
    .raw();
  // Positions are row ids, dense as appended: the last position within `count` of `after` is one lookup in the
  // table's tree, where `batchEnd` steps over `count` rows (and their pages). It ends a batch of at most `count`
  // events all the same; only a range with no event at all falls back to counting.
  const lastWithin = db
    .prepare<[number, number], number | null>('SELECT MAX(position) FROM events WHERE position > ? AND position <= ?')
    .pluck();
  const typedBatch = (after: number, count: number, types: string): EventRow[] => {
    const end = lastWithin.get(after, after + count) ?? batchEnd.get(after, count - 1) ?? head.get()!;
    return end > after ? typedForwards.all({ after, end, types }) : [];
  };

  const append = db.transaction((streamId: string, events: NewEvent[], expected: ExpectedRevision): AppendResult => {
    const current = lastRevision.get(streamId) ?? -1;
    if (!satisfiesExpectedRevision(expected, current)) {
      const retried = resultOfRetriedAppend(expected, events, (revision, count) =>
        streamForwards
          .all(streamId, revision + 1, count)
          .map(([position, , recorded, id]) => ({ id, revision: recorded, position })),
      );
      if (retried) return retried;
      throw new WrongExpectedRevisionError(streamId, expected, current === -1 ? 'no_stream' : current);
    }
    let revision = current;
    let position = 0;
    for (const event of events) {
      revision += 1;
      const data = JSON.stringify(event.data ?? null);
      position = Number(
        insert.run(streamId, revision, event.id ?? randomUUID(), event.type, data, JSON.stringify(event.metadata))
          .lastInsertRowid,
      );
    }
    return { nextExpectedRevision: revision, position };
  });

  /**
   * Group commit: appends requested in the same turn of the event loop share one write transaction (each in its
   * own savepoint, so one that fails its expected revision leaves the others alone). Each still resolves only
   * once that transaction is committed; what is saved is a commit, and a WAL write, per append.
   */
  interface PendingAppend {
    streamId: string;
    events: NewEvent[];
    expected: ExpectedRevision;
    resolve(result: AppendResult): void;
    reject(error: unknown): void;
  }
  let pending: PendingAppend[] = [];
  const appendAll = db.transaction((batch: PendingAppend[]) =>
    batch.map((item): { result: AppendResult } | { error: unknown } => {
      try {
        return { result: append(item.streamId, item.events, item.expected) };
      } catch (error) {
        return { error };
      }
    }),
  );
  const flush = () => {
    const batch = pending;
    pending = [];
    if (batch.length === 0) return;
    let outcomes: ({ result: AppendResult } | { error: unknown })[];
    try {
      // IMMEDIATE takes the write lock before reading the current revisions, so no other process can append in between.
      outcomes = appendAll.immediate(batch);
    } catch (error) {
      // The transaction rolled back: nothing of the batch was written.
      const failure = isBusy(error)
        ? new DependencyUnavailableError(
            'event store',
            `the event log stayed locked by another process for ${busyTimeoutMs} ms`,
            { cause: error },
          )
        : error;
      for (const item of batch) item.reject(failure);
      return;
    }
    for (const subscription of subscriptions) subscription.notify();
    outcomes.forEach((outcome, i) => {
      if ('result' in outcome) batch[i]!.resolve(outcome.result);
      else batch[i]!.reject(outcome.error);
    });
  };

  const subscriptions = new Set<CatchUpSubscription>();
  let closed = false;

  return {
    appendToStream(streamId, events, { expectedRevision }) {
      try {
        assertAppendable(events);
      } catch (error) {
        return Promise.reject(error);
      }
      return new Promise<AppendResult>((resolve, reject) => {
        if (pending.length === 0) setImmediate(flush);
        pending.push({ streamId, events, expected: expectedRevision, resolve, reject });
      });
    },

    async readStream(streamId, { direction = 'forwards', fromRevision, maxCount = NO_LIMIT } = {}) {
      const rows =
        direction === 'forwards'
          ? streamForwards.all(streamId, fromRevision ?? 0, maxCount)
          : streamBackwards.all(streamId, fromRevision ?? Number.MAX_SAFE_INTEGER, maxCount);
      return rows.map(toRecordedEvent);
    },

    async readAll({ direction = 'forwards', fromPosition, after, maxCount = NO_LIMIT } = {}) {
      const start = startOfRead(direction, fromPosition, after);
      const rows =
        direction === 'forwards'
          ? allForwards.all(start ?? 1, maxCount)
          : allBackwards.all(start ?? Number.MAX_SAFE_INTEGER, maxCount);
      return rows.map(toRecordedEvent);
    },

    subscribeToAll(subscriptionOptions) {
      if (closed) throw new Error('The event store is closed');
      const types = subscriptionOptions.types ? JSON.stringify(subscriptionOptions.types) : null;
      // A scan until it has read up to the head as it is now.
      const scanTo = head.get()!;
      let scanning = scanTo - (subscriptionOptions.after ?? 0) >= SCAN_BEHIND;
      if (scanning) scanStarted();
      const endScan = () => {
        if (!scanning) return;
        scanning = false;
        scanEnded();
      };
      const subscription = startCatchUpSubscription(
        {
          readAfter: (position, maxCount) => {
            const rows =
              types === null ? allForwards.all(position + 1, maxCount) : typedBatch(position, maxCount, types);
            if (scanning && (rows.length === 0 || rows[rows.length - 1]![0] >= scanTo)) endScan();
            return rows.map(toRecordedEvent);
          },
          headPosition: () => head.get()!,
        },
        subscriptionOptions,
        {
          pollIntervalMs: options.pollIntervalMs ?? 50,
          onClosed: () => {
            endScan();
            subscriptions.delete(subscription);
          },
        },
      );
      subscriptions.add(subscription);
      return subscription;
    },

    async headPosition() {
      return head.get()!;
    },

    pageCacheSize: cacheSize,

    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([...subscriptions].map((subscription) => subscription.close()));
      // Appends already requested are committed, as they would have been before the close.
      flush();
      db.close();
    },
  };
}
