/** The projector's options, what a start is told, and a rebuild's progress (see Projector in runner.ts). */
import type { StaleCommitError } from '../ports/readModel';
import type { EventStore } from '../ports/eventStore';
import type { ReadModel } from '../ports/readModel';
import type { Projection } from './projection';

export interface ProjectorOptions {
  store: EventStore;
  readModel: ReadModel;
  projections: readonly Projection[];
  maxBatchSize?: number;
  log?: (message: string, detail?: unknown) => void;
  /** How long a rebuilt projection's replaced documents are kept after the switch, for readers still using them. */
  retireGraceMs?: number;
  /** Told the progress of every rebuild (metrics), besides the caller's own callback. */
  onRebuildProgress?: (progress: RebuildProgress) => void;
  /** Documents a rebuild into a staged generation folds before each bulk commit (BULK_FLUSH_DOCS). */
  bulkFlushDocs?: number;
  /**
   * Keeps the read model's epoch (src/projection/epoch.ts). Before each start the read model is judged against the
   * store: a wiped one (no epoch) is cleared and rebuilt from the log; one built from another log, or ahead of the
   * store, is refused (`refusal`) and the projector waits, applying nothing, until that changes. Once caught up the
   * epoch is recorded; every `checkMs` after, the judgement is repeated and the epoch recorded again when the applied
   * position moved. Without it the projector judges nothing (tests, replays into a fresh read model).
   */
  epoch?: EpochKeeping;
}

export interface EpochKeeping {
  checkMs: number;
  /**
   * The read model the epoch is read from and recorded in, when `readModel` is a view of it that notices changes
   * (src/projection/readModelVersion.ts): no answer reads the epoch, so recording it must not make caches let go.
   */
  readModel?: ReadModel;
  /** The time an epoch is recorded at (the site's clock). */
  now(): number;
  /** Told after each epoch recorded (and awaited: the site judges its read model again). */
  onRecorded?(): Promise<void> | void;
}

export interface ProjectorStartOptions {
  /** The lease's fencing token, sent with every commit: a read model refuses it once a newer lease exists. */
  fence?: number;
  /** Told the lowest position every projection has applied, after each commit that raises it. */
  onApplied?(position: number): void;
  /** Told when a commit was refused because a newer lease exists: this projector has stopped. */
  onFenced?(error: StaleCommitError): void;
  /**
   * Told once the projections not being rebuilt have caught up: writes need wait for nothing else, though start
   * resolves only once a rebuild is over too.
   */
  onCaughtUp?(): void;
}

export interface RebuildProgress {
  projection: string;
  /** The log position folded so far (every projection of one pass is at the same one). */
  applied: number;
  head: number;
  eventsPerSecond: number;
  /** Every projection the pass is rebuilding (a rebuild of several reads the log once for all of them). */
  projections?: readonly string[];
  /** Seconds until the pass reaches `head` at the rate so far; null before there is a rate. */
  secondsLeft?: number | null;
}
