/**
 * The projector: feeds the global log to every projection and commits each batch of document changes
 * together with the projection's checkpoint, atomically, so a crash neither skips nor repeats an event.
 * It also answers "has everything up to position P been applied?", which is how a write waits before it
 * answers (read-your-writes).
 */
import type { EventStore, RecordedEvent, Subscription } from '../ports/eventStore';
import { StaleCommitError } from '../ports/readModel';
import { isDependencyUnavailable } from '../ports/unavailable';
import type { DependencyUnavailableError } from '../ports/unavailable';
import type { Commit, Doc, DocId, DocWrite, ReadModel } from '../ports/readModel';
import { withFields } from './projection';
import { EPOCH_CHECKPOINT, EPOCH_COLLECTION, epochAt, epochCommit, isRefused, judgeReadModel, readEpoch, sameEpoch } from './epoch';
import type { Epoch } from './epoch';
import type { DocTarget, Projection, ReadOwn } from './projection';

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

interface Running {
  projection: Projection;
  applied: number;
  /** Its own subscription: while rebuilding, or after it left the shared one (a generation switch). */
  subscription: Subscription | null;
  /** Fed by the shared subscription, which reads (and parses) the log once for every projection. */
  shared: boolean;
  failed: unknown;
  /** The read-model generation it commits to (undefined: the live one, on read models without generations). */
  generation?: number;
  /**
   * While a rebuild fills a staged generation (which nobody reads): the documents folded since the last flush,
   * committed in one large bulk commit every BULK_FLUSH_DOCS documents and once caught up, instead of one commit
   * per batch of the log.
   */
  bulk?: Map<string, BulkDoc>;
  /** The last position folded into `bulk`. */
  bulkPosition?: number;
  /** Applies and flushes of its own subscription, one after another. */
  chain?: Promise<unknown>;
  /**
   * Being refolded from the whole log (into a staged generation, or in place): left out of the applied position writes
   * wait for, so they need not wait for the rebuild; the other projections go on being applied meanwhile.
   */
  rebuilding?: boolean;
  /** A staged build switched in: the pass that built it feeds it no more (the running projector takes it on). */
  retired?: boolean;
}

/**
 * A document a bulk rebuild folded since its last flush: the fold's own object and its JSON, made once. The flush
 * hands the JSON to the commit (not serialised again), and a later batch folds onto its parse, exactly what the read
 * model would give back.
 */
interface BulkDoc {
  target: DocTarget;
  doc: Doc | null;
  json?: string;
}

/** Pauses before a projection an outage interrupted tries again: the first, doubling up to the longest. */
const OUTAGE_FIRST_PAUSE_MS = 250;
const OUTAGE_LONGEST_PAUSE_MS = 5_000;

/** Documents a bulk rebuild holds before committing them (bounds the rebuilding process's memory). */
const BULK_FLUSH_DOCS = 20_000;

/**
 * The progress of a rebuild pass, told for each of its projections (they are all at the same position): the position
 * folded, the rate since the pass began, and the time left to reach the head at that rate.
 */
class PassProgress {
  private readonly started = Date.now();
  applied = 0;

  constructor(
    private readonly names: readonly string[],
    private readonly head: number,
    private readonly tell: (progress: RebuildProgress) => void,
  ) {}

  /** The pass has folded up to `applied`: every projection's progress is told. */
  report(applied: number): void {
    this.applied = applied;
    for (const name of this.names) this.tell(this.of(name));
  }

  /** A projection's progress now (the result of its rebuild once it is switched in). */
  final(name: string): RebuildProgress {
    return this.of(name);
  }

  private of(projection: string): RebuildProgress {
    const seconds = (Date.now() - this.started) / 1000;
    const eventsPerSecond = seconds > 0 ? Math.round(this.applied / seconds) : 0;
    const secondsLeft = eventsPerSecond > 0 ? Math.max(0, this.head - this.applied) / eventsPerSecond : null;
    return { projection, applied: this.applied, head: this.head, eventsPerSecond, projections: this.names, secondsLeft };
  }
}

interface Waiter {
  position: number;
  resolve(reached: boolean): void;
  timer: NodeJS.Timeout;
}

export class Projector {
  private readonly running = new Map<string, Running>();
  private waiters: Waiter[] = [];
  /** Cancels of the pending deletions of retired generations (see retire). */
  private readonly retiring = new Set<() => void>();
  /** Cancels of the pending resumptions of projections an outage interrupted (see resumeAfterOutage). */
  private readonly resuming = new Set<() => void>();
  private sharedSubscription: Subscription | null = null;
  /** The shared subscription's batch in progress: whoever takes a projection out of it waits for this. */
  private sharedDelivery: Promise<unknown> = Promise.resolve();
  private stopped = false;
  private term: ProjectorStartOptions = {};
  /** Ends a start waiting for the shared subscription to catch up, when the projector is stopped first. */
  private abortStart: (() => void) | null = null;
  /** Ends the rebuild passes in progress (see subscribePass), when the projector is stopped first. */
  private readonly passes = new Set<() => void>();
  /** Between start() and stop(): the epoch's timer may restart the projector (a wiped read model). */
  private active = false;
  /** Moves on at every run and halt: a run that finds it moved was overtaken and ends. */
  private runs = 0;
  /** The last run caught up (with the projections not being rebuilt). */
  private caughtUp = false;
  private epochTimer: NodeJS.Timeout | null = null;
  private judging = false;
  private refused: string | null = null;

  constructor(private readonly options: ProjectorOptions) {
    for (const projection of options.projections) {
      if (this.running.has(projection.name)) throw new Error(`two projections are named "${projection.name}"`);
      this.running.set(projection.name, { projection, applied: 0, subscription: null, shared: false, failed: null });
    }
  }

  /**
   * Starts every projection; resolves once all have caught up. A projection whose version changed is rebuilt: on a
   * read model with generations into a staged one, beside the others, which are applied from the start (writes wait
   * only for them meanwhile: see `rebuilding`), and it joins them once switched in; otherwise its collections are
   * cleared and it is refolded with the others. After stop() it may be started again (a new lease term), resuming
   * from the checkpoints.
   */
  async start(options: ProjectorStartOptions = {}): Promise<void> {
    this.term = options;
    this.active = true;
    const keeping = this.options.epoch;
    if (keeping && this.epochTimer === null) {
      this.epochTimer = setInterval(() => void this.keepEpoch(), keeping.checkMs);
      this.epochTimer.unref();
    }
    await this.run();
  }

  private get epochReadModel(): ReadModel {
    return this.options.epoch?.readModel ?? this.options.readModel;
  }

  /** Why the projector applies nothing (a read model built from another log, or ahead of the store), or null. */
  get refusal(): string | null {
    return this.refused;
  }

  /** One run of the projections, from their checkpoints, for the current term (see start). */
  private async run(): Promise<void> {
    const run = ++this.runs;
    const options = this.term;
    this.stopped = false;
    this.caughtUp = false;
    const entries = [...this.running.values()];
    for (const entry of entries) {
      entry.failed = null;
      entry.rebuilding = false;
    }
    // The epoch this run found (after clearing an unbuilt read model: none); it records the next one only over it.
    let judged: Epoch | null | undefined;
    if (this.options.epoch) {
      const judgement = await this.judgeBeforeRun();
      if (judgement === null) return;
      judged = judgement.epoch;
    }
    if (this.stopped || run !== this.runs) return;
    const prepared = await Promise.all(entries.map(async (entry) => ({ entry, state: await this.prepare(entry) })));
    // Stopped while preparing: this start is over.
    if (this.stopped || run !== this.runs) return;
    const ready = prepared.filter(({ state }) => state === 'ready').map(({ entry }) => entry);
    const toRebuild = prepared.filter(({ state }) => state === 'rebuild').map(({ entry }) => entry);
    const rebuilds = toRebuild.length > 0 ? [this.rebuildAndJoin(toRebuild)] : [];
    // Projections starting from the beginning of the log fill empty collections nobody reads before this resolves.
    const { readModel } = this.options;
    for (const entry of ready) if (entry.applied === 0) readModel.beginBulkLoad?.(entry.projection.collections);
    let sharedFailure: { error: unknown } | null = null;
    try {
      if (ready.length > 0) await this.subscribeShared(ready);
      if (!this.stopped && run === this.runs) {
        if (this.options.epoch) await this.recordEpoch(judged ?? null);
        this.caughtUp = true;
        options.onCaughtUp?.();
      }
    } catch (error) {
      sharedFailure = { error };
    }
    readModel.endBulkLoad?.();
    // Whatever happened to the others, a rebuild's failure is seen by the caller (and in `failures`).
    const outcomes = await Promise.allSettled(rebuilds);
    const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    if (failed) throw failed.reason;
    if (sharedFailure) throw sharedFailure.error;
  }

  /** Projections being rebuilt, whose documents are those from before the rebuild until it is switched in. */
  get rebuilding(): string[] {
    return [...this.running.values()].filter((entry) => entry.rebuilding).map((entry) => entry.projection.name);
  }

  get names(): string[] {
    return [...this.running.keys()];
  }

  /** Every projection this projector runs, in start order. */
  get projections(): readonly Projection[] {
    return [...this.running.values()].map((entry) => entry.projection);
  }

  /**
   * The lowest position every projection has applied, leaving out those being rebuilt (writes wait for this
   * position: they need not wait for a rebuild; when every projection is being rebuilt, it is 0).
   */
  get appliedPosition(): number {
    let lowest = Number.POSITIVE_INFINITY;
    for (const entry of this.running.values()) if (!entry.rebuilding) lowest = Math.min(lowest, entry.applied);
    return Number.isFinite(lowest) ? lowest : 0;
  }

  /** Projections that stopped on an error (a read model that cannot be trusted until fixed and rebuilt). */
  get failures(): { projection: string; error: unknown }[] {
    return [...this.running.values()].filter((e) => e.failed !== null).map((e) => ({ projection: e.projection.name, error: e.failed }));
  }

  /** Resolves true once every projection has applied `position`, or false after `timeoutMs`. */
  waitFor(position: number, timeoutMs = 5_000): Promise<boolean> {
    if (position <= this.appliedPosition) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        position,
        resolve,
        timer: setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          resolve(false);
        }, timeoutMs),
      };
      this.waiters.push(waiter);
    });
  }

  /**
   * Replays the whole log into a projection's read model, reporting progress. On a read model with generations the
   * old documents keep serving (and, if a projector runs them, keep being updated) until the new ones have caught
   * up, then readers switch at once; otherwise the read model is cleared first.
   */
  async rebuild(name: string, onProgress?: (progress: RebuildProgress) => void): Promise<RebuildProgress> {
    return (await this.rebuildAll([name], onProgress))[0]!;
  }

  /**
   * Rebuilds projections in one pass over the log: it is read (and parsed) once, and every projection folds its part of
   * each batch. On a read model with generations each projection is built into a staged generation of its own, and
   * once the pass has caught up each is switched in on its own, atomically, telling `onRebuilt` as it is; the replaced
   * generations are deleted together once the grace after the last switch is over (readers of other processes may
   * still be on them), before it answers: one grace in all, and nothing deleted while the pass runs (retire). Without
   * generations, their collections are cleared and refolded together. A projection whose fold fails is left as it was
   * (its staged generation abandoned) while the others carry on; the failure is thrown once they are done.
   */
  async rebuildAll(names: readonly string[], onProgress?: (progress: RebuildProgress) => void, onRebuilt?: (progress: RebuildProgress) => void): Promise<RebuildProgress[]> {
    const entries = [...new Set(names)].map((name) => {
      const entry = this.running.get(name);
      if (!entry) throw new Error(`no projection named "${name}"`);
      return entry;
    });
    if (entries.length === 0) return [];
    if (!this.options.readModel.generations) return this.rebuildInPlace(entries, onProgress, onRebuilt);
    const retired: { projection: Projection; generation: number }[] = [];
    let retiring: Promise<void> = Promise.resolve();
    let outcome: { results: RebuildProgress[]; failure: unknown };
    try {
      outcome = await this.buildGenerations(
        entries.map((entry) => entry.projection),
        onProgress,
        (progress, generation) => {
          retired.push({ projection: this.running.get(progress.projection)!.projection, generation });
          onRebuilt?.(progress);
        },
      );
    } finally {
      // Also after a failed build: the generations already replaced go. Caught here, reported below: a deletion that
      // fails still fails a rebuild that built.
      retiring = this.retire(retired);
      await retiring.catch(() => undefined);
    }
    await retiring;
    if (outcome.failure !== undefined) throw outcome.failure;
    return outcome.results;
  }

  /**
   * A rebuild on a read model without generations: the projections' documents are cleared, then folded anew from one
   * subscription, which goes on feeding them afterwards.
   */
  private async rebuildInPlace(entries: Running[], onProgress?: (progress: RebuildProgress) => void, onRebuilt?: (progress: RebuildProgress) => void): Promise<RebuildProgress[]> {
    const { readModel, store } = this.options;
    for (const entry of entries) {
      await this.leaveShared(entry);
      await entry.subscription?.close();
      entry.subscription = null;
      // Writes stop waiting for it until it has caught up (its documents are partial meanwhile).
      entry.rebuilding = true;
      entry.applied = 0;
      entry.failed = null;
      await readModel.reset(entry.projection.name, entry.projection.collections);
    }
    const pass = new PassProgress(entries.map((entry) => entry.projection.name), await store.headPosition(), (progress) => {
      onProgress?.(progress);
      this.options.onRebuildProgress?.(progress);
    });
    for (const entry of entries) readModel.beginBulkLoad?.(entry.projection.collections);
    try {
      await this.subscribePass(entries, true, (applied) => pass.report(applied));
    } finally {
      readModel.endBulkLoad?.();
      for (const entry of entries) entry.rebuilding = false;
    }
    const failed = entries.find((entry) => entry.failed !== null);
    const results = entries.filter((entry) => entry.failed === null).map((entry) => pass.final(entry.projection.name));
    for (const result of results) onRebuilt?.(result);
    if (failed) throw failed.failed;
    return results;
  }

  /**
   * Judges the read model before a run: a wiped one is cleared (the projections then replay the whole log), and one
   * that must not be overwritten is refused. Null when the run must not go on; otherwise the epoch the read model
   * holds now (none after clearing it).
   */
  private async judgeBeforeRun(): Promise<{ epoch: Epoch | null } | null> {
    const { store, readModel, log } = this.options;
    const verdict = await judgeReadModel(store, this.epochReadModel);
    if (isRefused(verdict)) {
      if (this.refused !== verdict.reason) log?.(`projector: applying nothing: ${verdict.reason}`);
      this.refused = verdict.reason;
      return null;
    }
    this.refused = null;
    if (verdict.state === 'unbuilt') {
      // A damaged epoch goes with the rest, so the one recorded once rebuilt is written over none.
      await this.epochReadModel.reset(EPOCH_CHECKPOINT, [EPOCH_COLLECTION]);
      const stale = [...this.running.values()];
      const checkpoints = await Promise.all(stale.map((entry) => readModel.checkpoint(entry.projection.name)));
      const built = stale.filter((_, i) => checkpoints[i] !== null);
      if (built.length > 0) log?.(`projector: ${verdict.reason}; clearing ${built.map((entry) => entry.projection.name).join(', ')}`);
      for (const entry of built) await readModel.reset(entry.projection.name, entry.projection.collections);
      for (const entry of stale) entry.applied = 0;
      return { epoch: null };
    }
    return { epoch: verdict.epoch };
  }

  /**
   * Records the epoch at the position every projection not being rebuilt has applied, only while the read model
   * still holds `judged` (the epoch a judgement found, null for none): an epoch removed since must not be written
   * back over a read model that is not known to be whole (the next judgement finds it gone and rebuilds). The commit
   * itself expects the epoch's checkpoint where `judged` left it, so a removal between the check and the write wins.
   */
  private async recordEpoch(judged: Epoch | null): Promise<void> {
    const { store, epoch: keeping, log } = this.options;
    if (!keeping) return;
    const readModel = this.epochReadModel;
    const position = this.appliedPosition;
    try {
      const epoch = await epochAt(store, position, keeping.now());
      if (this.stopped) return;
      if (!sameEpoch(await readEpoch(readModel), judged)) return;
      await readModel.commit({ ...epochCommit(epoch, this.term.fence), expectedPosition: judged === null ? null : judged.position });
    } catch (error) {
      // Removed since it was read: the next judgement finds it gone.
      if (error instanceof StaleCommitError && error.reason === 'checkpoint') return;
      // A newer lease (fence), or the store gone: the next judgement, or the next term, sees to it.
      log?.('projector: the read model\'s epoch was not recorded', error instanceof Error ? error.message : error);
      return;
    }
    await keeping.onRecorded?.();
  }

  /**
   * Every `epoch.checkMs` while started: judges the read model again. A read model wiped under the running projector
   * is rebuilt (the run starts over, clearing it first); one found built from another log or ahead of the store stops
   * the projector until that changes; otherwise the epoch is recorded again once the applied position has moved.
   */
  private async keepEpoch(): Promise<void> {
    if (this.judging || !this.active) return;
    this.judging = true;
    const { store, log } = this.options;
    try {
      const verdict = await judgeReadModel(store, this.epochReadModel);
      if (!this.active) return;
      if (this.refused !== null) {
        // Held: once the store and the read model agree again (an operator restored one or cleared the other), run.
        if (!isRefused(verdict)) {
          log?.('projector: the read model and the event store agree again; resuming');
          await this.restart();
        }
        return;
      }
      if (isRefused(verdict)) {
        log?.(`projector: stopping: ${verdict.reason}`);
        this.refused = verdict.reason;
        await this.halt();
        return;
      }
      if (!this.caughtUp) return;
      if (verdict.state === 'unbuilt') {
        log?.(`projector: ${verdict.reason}`);
        await this.restart();
        return;
      }
      const applied = this.appliedPosition;
      // Published again: the shared applied position may have been lost (a Redis key deleted) while nothing moved.
      if (this.failures.length === 0) this.term.onApplied?.(applied);
      if (verdict.epoch === null || verdict.epoch.position !== applied) await this.recordEpoch(verdict.epoch);
    } catch (error) {
      // A judgement cut short by a stop is no news.
      if (this.active) log?.('projector: could not judge the read model', error instanceof Error ? error.message : error);
    } finally {
      this.judging = false;
    }
  }

  /** Stops the run in progress and starts another for the same term (unless stopped meanwhile). */
  private async restart(): Promise<void> {
    await this.halt();
    if (!this.active) return;
    try {
      await this.run();
    } catch (error) {
      this.options.log?.('projector: restart failed', error);
    }
  }

  /** Stops applying events, for good (a lease term ended, or the process stops); start() runs it again. */
  async stop(): Promise<void> {
    this.active = false;
    if (this.epochTimer !== null) clearInterval(this.epochTimer);
    this.epochTimer = null;
    await this.halt();
  }

  /** Stops the run in progress: subscriptions closed, waiters told no. */
  private async halt(): Promise<void> {
    this.runs++;
    this.caughtUp = false;
    this.stopped = true;
    for (const cancel of this.retiring) cancel();
    this.retiring.clear();
    for (const cancel of this.resuming) cancel();
    this.resuming.clear();
    this.abortStart?.();
    this.abortStart = null;
    // A rebuild pass's subscription is its own (not any running projection's): it is ended here too, or a start that
    // waits for it would go on until the whole log is folded, and the next term's start with it.
    for (const end of this.passes) end();
    this.passes.clear();
    const shared = this.sharedSubscription;
    this.sharedSubscription = null;
    for (const entry of this.running.values()) entry.shared = false;
    await Promise.all([shared?.close(), ...[...this.running.values()].map((entry) => entry.subscription?.close())]);
    for (const waiter of this.waiters) {
      clearTimeout(waiter.timer);
      waiter.resolve(false);
    }
    this.waiters = [];
  }

  /** Prepares one projection, then feeds it from a subscription of its own (it left the shared one). */
  private async startOne(entry: Running): Promise<void> {
    const state = await this.prepare(entry);
    if (state === 'ready') await this.subscribe(entry, entry.applied);
    else if (state === 'rebuild') await this.rebuildAndJoin([entry]);
  }

  /**
   * Reads the projection's checkpoint and sets where it resumes: 'ready' to run, 'rebuild' when its version changed on
   * a read model with generations (rebuildAndJoin), 'stopped' when it cannot run (a newer version is live). On a read
   * model without generations a changed version clears its collections, and it runs from the start of the log.
   */
  private async prepare(entry: Running): Promise<'ready' | 'rebuild' | 'stopped'> {
    const { readModel } = this.options;
    const { projection } = entry;
    let checkpoint = await readModel.checkpoint(projection.name);
    let after = 0;
    if (checkpoint && checkpoint.version > projection.version && readModel.generations) {
      // A newer deployment rebuilt it: going back would fight it. Serve nothing from here; /readyz reports it.
      entry.failed = new Error(`projection ${projection.name}: version ${checkpoint.version} is live, this projector has ${projection.version}`);
      this.options.log?.((entry.failed as Error).message);
      return 'stopped';
    }
    if (checkpoint && checkpoint.version !== projection.version) {
      this.options.log?.(`projection ${projection.name}: version ${checkpoint.version} -> ${projection.version}, rebuilding`);
      if (readModel.generations) {
        // Set before anything is awaited, so no settle counts it from here on.
        entry.rebuilding = true;
        return 'rebuild';
      }
      await readModel.reset(projection.name, projection.collections);
      checkpoint = null;
    }
    if (checkpoint) after = checkpoint.position;
    entry.generation = await readModel.generations?.liveGeneration(projection.name);
    entry.applied = after;
    return 'ready';
  }

  /**
   * Rebuilds projections whose version changed into staged generations (their old documents keep serving, as they
   * were), in one pass over the log; switches readers to each once the pass has caught up, then feeds each from a
   * subscription of its own. Until one has caught up there, writes do not wait for it.
   */
  private async rebuildAndJoin(entries: readonly Running[]): Promise<void> {
    for (const entry of entries) entry.rebuilding = true;
    const joins: Promise<void>[] = [];
    const stopped = (entry: Running, error: unknown) => {
      entry.failed = error;
      entry.rebuilding = false;
      this.options.log?.(`projection ${entry.projection.name} stopped`, error);
    };
    const join = async (entry: Running): Promise<void> => {
      const { projection } = entry;
      try {
        if (this.stopped) return;
        const state = await this.prepare(entry);
        if (state === 'ready') await this.subscribe(entry, entry.applied);
        else if (state === 'rebuild') throw new Error(`projection ${projection.name}: the rebuilt generation was replaced by one of another version`);
      } catch (error) {
        stopped(entry, error);
        throw error;
      } finally {
        entry.rebuilding = false;
      }
    };
    let built: { results: RebuildProgress[]; failure: unknown };
    try {
      built = await this.buildGenerations(
        entries.map((entry) => entry.projection),
        undefined,
        (progress, generation) => {
          const entry = this.running.get(progress.projection)!;
          this.retire([{ projection: entry.projection, generation }]).catch((error) => this.options.log?.(`projection ${progress.projection}: old documents not deleted`, error));
          joins.push(join(entry));
        },
      );
    } catch (error) {
      // Stopped: the next run starts the rebuild again.
      if (error instanceof RebuildStopped) return;
      for (const entry of entries) if (entry.rebuilding) stopped(entry, error);
      throw error;
    }
    if (built.failure !== undefined) {
      const switched = new Set(built.results.map((result) => result.projection));
      for (const entry of entries) if (!switched.has(entry.projection.name)) stopped(entry, built.failure);
    }
    const outcomes = await Promise.allSettled(joins);
    if (built.failure !== undefined) throw built.failure;
    const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /**
   * One subscription for every projection, from the lowest checkpoint: each batch is read and parsed once, and
   * each projection applies the part after its own checkpoint (concurrently). A projection whose apply fails
   * leaves it and is handled as on its own subscription. Resolves once caught up with the log as it was.
   */
  private subscribeShared(entries: Running[]): Promise<void> {
    for (const entry of entries) entry.shared = true;
    const after = Math.min(...entries.map((entry) => entry.applied));
    return new Promise((resolve, reject) => {
      let caughtUp = false;
      // A closed subscription never reports catching up: stop() ends the wait instead.
      this.abortStart = resolve;
      const leave = (entry: Running, error: unknown) => {
        entry.shared = false;
        if (this.failed(entry, error, true)) {
          if (!caughtUp) reject(error);
        }
      };
      const feed = async (events: readonly RecordedEvent[]) => {
        const first = events[0]!.position;
        const last = events[events.length - 1]!.position;
        const takers = [...this.running.values()].filter((entry) => entry.shared && entry.applied < last);
        const ownEvents = (entry: Running) => (entry.applied < first ? events : events.filter((event) => event.position > entry.applied));
        const { readModel } = this.options;
        if (readModel.commitsAlongside !== true || takers.length < 2) {
          await Promise.all(
            takers.map(async (entry) => {
              try {
                await this.apply(entry, ownEvents(entry), true);
              } catch (error) {
                leave(entry, error);
              }
            }),
          );
          return;
        }
        // Every projection folds its part, then one commit carries them all (one round trip instead of one per
        // projection); if it is refused, each is committed alone, so only the projection at fault leaves.
        const folded = await Promise.all(
          takers.map(async (entry) => {
            try {
              const commit = await this.fold(entry, ownEvents(entry), true);
              return commit && { entry, commit };
            } catch (error) {
              leave(entry, error);
              return null;
            }
          }),
        );
        const ready = folded.filter((f): f is { entry: Running; commit: Commit } => f !== null);
        if (ready.length === 0 || this.stopped) return;
        try {
          const [first, ...rest] = ready.map((f) => f.commit);
          await readModel.commit({ ...first!, alongside: rest });
          this.settle(ready.map((f) => [f.entry, f.commit.checkpoint.position]));
        } catch {
          await Promise.all(
            ready.map(async ({ entry, commit }) => {
              try {
                await readModel.commit(commit);
                this.settle([[entry, commit.checkpoint.position]]);
              } catch (error) {
                leave(entry, error);
              }
            }),
          );
        }
      };
      this.sharedSubscription = this.options.store.subscribeToAll({
        after,
        maxBatchSize: this.options.maxBatchSize ?? 1000,
        // Only what some projection folds needs reading (the store may leave the rest out).
        types: [...new Set(entries.flatMap((entry) => entry.projection.handles))],
        onEvents: (events) => (this.sharedDelivery = feed(events)),
        onCaughtUp: () => {
          caughtUp = true;
          resolve();
        },
        onError: (error) => {
          // Reading the log failed: every projection it fed stops.
          for (const entry of this.running.values()) {
            if (!entry.shared) continue;
            entry.shared = false;
            entry.failed = error;
          }
          this.options.log?.('projector: reading the log failed', error);
          if (!caughtUp) reject(error);
        },
      });
    });
  }

  /** Takes a projection out of the shared subscription, once the batch it may be applying is committed. */
  private async leaveShared(entry: Running): Promise<void> {
    if (!entry.shared) return;
    entry.shared = false;
    await this.sharedDelivery.catch(() => undefined);
  }

  /**
   * Builds projections into staged generations of their own in one pass over the log (read and parsed once; each
   * projection folds its part of every batch, in memory, and flushes in bulk), then switches readers to each, one at a
   * time, each atomically with its checkpoint; `onBuilt` is told each switch and the generation it retired. A projection
   * whose fold or flush fails is abandoned and the others go on: the first such failure is returned with the results of
   * those switched in. Only a failure to read the log (or to stage) is thrown.
   */
  private async buildGenerations(
    projections: readonly Projection[],
    onProgress: ((progress: RebuildProgress) => void) | undefined,
    onBuilt: (progress: RebuildProgress, retired: number) => void,
  ): Promise<{ results: RebuildProgress[]; failure: unknown }> {
    const { readModel, store } = this.options;
    const generations = readModel.generations!;
    const builds: { staged: Running; promoted: boolean }[] = [];
    const results: RebuildProgress[] = [];
    let failure: unknown;
    // A stop (or a restart) ends the pass: nothing more is flushed or switched in, and its staged generations go.
    const run = this.runs;
    const stopped = () => this.runs !== run;
    const endIfStopped = () => {
      if (stopped()) throw new RebuildStopped(projections.map((projection) => projection.name));
    };
    try {
      for (const projection of projections) {
        const generation = await generations.stageGeneration(projection.name, projection.collections);
        builds.push({ staged: { projection, applied: 0, subscription: null, shared: false, failed: null, generation, bulk: new Map() }, promoted: false });
      }
      const staged = builds.map((build) => build.staged);
      const pass = new PassProgress(projections.map((projection) => projection.name), await store.headPosition(), (progress) => {
        onProgress?.(progress);
        this.options.onRebuildProgress?.(progress);
      });
      await this.subscribePass(staged, false, (applied) => pass.report(applied));
      endIfStopped();
      // Caught up: what is folded is committed, and the rest of the log is followed batch by batch.
      await Promise.all(
        staged.map((entry) =>
          this.serially(entry, async () => {
            const position = entry.bulkPosition;
            entry.bulkPosition = undefined;
            if (position !== undefined && entry.failed === null) await this.flushBulk(entry, position);
            entry.bulk = undefined;
          }).catch((error) => this.buildFailed(entry, error)),
        ),
      );
      // The rate counts the last flushes too (the batches before them were only folded).
      pass.report(pass.applied);
      for (const build of builds) {
        const { staged: entry } = build;
        const { projection } = entry;
        for (;;) {
          endIfStopped();
          if (entry.failed !== null) break;
          // Between two batches of its own, and none of its batches committed after: the switched generation is the
          // running projector's from then on.
          const outcome = await this.serially(entry, async () => {
            const promoted = await generations.promote(projection.name, entry.generation!, projection.collections);
            if (promoted !== 'behind') entry.retired = true;
            return promoted;
          }).catch((error: unknown) => {
            this.buildFailed(entry, error);
            return null;
          });
          if (outcome === null) break;
          if (outcome !== 'behind') {
            build.promoted = true;
            const progress = pass.final(projection.name);
            results.push(progress);
            onBuilt(progress, outcome.retired);
            break;
          }
          // The live projector is ahead: follow the log a little longer, then try again.
          const live = (await readModel.checkpoint(projection.name))?.position ?? 0;
          while (entry.applied < live && entry.failed === null && !stopped()) await new Promise((resolve) => setTimeout(resolve, 20));
        }
        if (entry.failed !== null) failure ??= entry.failed;
      }
      return { results, failure };
    } finally {
      // A stopped pass's subscription was closed by the stop; a batch it was folding then ends on its own (and commits
      // nothing into the abandoned generations), not waited for here.
      const closing = builds[0]?.staged.subscription?.close();
      if (stopped()) closing?.catch(() => undefined);
      else await closing;
      await Promise.all(builds.filter((build) => !build.promoted).map(({ staged }) => generations.abandonGeneration?.(staged.projection.name, staged.generation!).catch(() => undefined)));
    }
  }

  /** A projection of a rebuild pass failed: it is fed no more, and its staged generation is abandoned. */
  private buildFailed(entry: Running, error: unknown): void {
    if (entry.failed !== null) return;
    entry.failed = error;
    this.options.log?.(`projection ${entry.projection.name}: rebuild failed`, error);
  }

  /**
   * One subscription from the start of the log for the projections of a rebuild pass: each batch is read once, and
   * each projection folds it (after its previous batch: serially), concurrently with the others. Resolves once caught
   * up with the log as it was; the subscription goes on feeding them (every entry's `subscription` is this one). A
   * projection whose fold fails is fed no more; `live` decides how (as a live projection's failure, or a build's).
   * Each projection of a staged pass flushes on its own once it holds BULK_FLUSH_DOCS documents (a flush of documents
   * already flushed once rewrites them through the commit script, slower than a first write).
   */
  private subscribePass(entries: readonly Running[], live: boolean, onApplied: (applied: number) => void): Promise<void> {
    return new Promise((resolve, reject) => {
      let caughtUp = false;
      // A stop ends a staged pass's wait (the caller sees it stopped) and closes its subscription. A live pass feeds
      // the running projections, whose subscription (this one) a stop closes anyway.
      const end = () => {
        this.passes.delete(end);
        subscription.close().catch(() => undefined);
        resolve();
      };
      if (!live) this.passes.add(end);
      const subscription = this.options.store.subscribeToAll({
        after: 0,
        maxBatchSize: this.options.maxBatchSize ?? 1000,
        // Only what some projection folds needs reading (the store may leave the rest out).
        types: [...new Set(entries.flatMap((entry) => entry.projection.handles))],
        onEvents: async (events) => {
          const feeding = entries.filter((entry) => entry.failed === null && entry.retired !== true);
          const failed = (entry: Running, error: unknown) => {
            if (!live) this.buildFailed(entry, error);
            else if (this.failed(entry, error, true)) entry.rebuilding = false;
          };
          // A projection switched in while this batch waited behind the switch is not fed it.
          await Promise.all(
            feeding.map((entry) => this.serially(entry, () => (entry.retired === true ? Promise.resolve() : this.apply(entry, events, live))).catch((error) => failed(entry, error))),
          );
          onApplied(events[events.length - 1]!.position);
          // A pass into staged generations folds in memory, mostly without I/O, and a store that reads synchronously
          // (SQLite) would then hold the thread from batch to batch: timers and I/O (the lease's renewals, the other
          // projections' applies, requests) get their turn between batches.
          if (!live) await new Promise((resolve) => setImmediate(resolve));
        },
        onCaughtUp: () => {
          caughtUp = true;
          this.passes.delete(end);
          resolve();
        },
        onError: (error) => {
          this.passes.delete(end);
          // Reading the log failed: every projection of the pass stops.
          for (const entry of entries) {
            if (!live) this.buildFailed(entry, error);
            else if (entry.failed === null) entry.failed = error;
          }
          this.options.log?.('projector: reading the log for a rebuild failed', error);
          if (!caughtUp) reject(error);
        },
      });
      for (const entry of entries) entry.subscription = subscription;
    });
  }

  /**
   * Deletes replaced generations once readers have switched (they hear of a switch at once; the grace after the last
   * switch covers lag), together: the adapter can find them all in one go (on Redis one walk of the keyspace). A
   * rebuild of several projections retires them after its last switch, so nothing is deleted while the builds still
   * use the read model. A stop within the grace leaves them: each switch recorded its generation as retired, and
   * `projections sweep` deletes them.
   */
  private async retire(retired: readonly { projection: Projection; generation: number }[]): Promise<void> {
    if (retired.length === 0 || !(await this.graceOver())) return;
    await this.options.readModel.generations?.dropGenerations(retired.map(({ projection, generation }) => ({ collections: projection.collections, generation })));
  }

  /** Resolves true once a switch's grace is over, false when the projector stops first (or has stopped). */
  private graceOver(): Promise<boolean> {
    if (this.stopped) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const cancel = () => {
        clearTimeout(timer);
        resolve(false);
      };
      const timer = setTimeout(() => {
        this.retiring.delete(cancel);
        resolve(true);
      }, this.options.retireGraceMs ?? 5_000);
      this.retiring.add(cancel);
    });
  }

  /** Subscribes after `after`; resolves when caught up with the log as it was at subscription time. */
  private subscribe(entry: Running, after: number, onApplied?: (applied: number) => void, live = true): Promise<void> {
    return new Promise((resolve, reject) => {
      let caughtUp = false;
      let appliedEvents = 0;
      entry.subscription = this.options.store.subscribeToAll({
        after,
        maxBatchSize: this.options.maxBatchSize ?? 1000,
        onEvents: async (events) => {
          await this.serially(entry, () => this.apply(entry, events, live));
          appliedEvents += events.length;
          onApplied?.(appliedEvents);
          // A rebuild into a staged generation folds in memory, mostly without I/O, and a store that reads
          // synchronously (SQLite) would then hold the thread from batch to batch: timers and I/O (the lease's
          // renewals, the other projections' applies, requests) get their turn between batches.
          if (!live) await new Promise((resolve) => setImmediate(resolve));
        },
        onCaughtUp: () => {
          caughtUp = true;
          resolve();
        },
        onError: (error) => {
          if (this.failed(entry, error, live)) {
            if (!caughtUp) reject(error);
          } else if (!caughtUp) resolve();
        },
      });
    });
  }

  /** Runs `task` after the entry's previous applies and flushes (a bulk flush must not overtake a batch). */
  private serially<T>(entry: Running, task: () => Promise<T>): Promise<T> {
    const next = (entry.chain ?? Promise.resolve()).then(task);
    entry.chain = next.catch(() => undefined);
    return next;
  }

  /** Commits the documents a bulk rebuild folded, with the checkpoint of the last event folded. */
  private async flushBulk(entry: Running, position: number): Promise<void> {
    const { projection } = entry;
    const writes: DocWrite[] = [];
    for (const { target, doc, json } of entry.bulk!.values()) {
      const { collection, id } = target;
      writes.push(doc ? { collection, id, doc, json, index: projection.index?.(doc, collection) } : { collection, id, doc: null });
    }
    entry.bulk!.clear();
    await this.options.readModel.commit({
      writes,
      checkpoint: { name: projection.name, position, version: projection.version },
      generation: entry.generation,
      bulk: true,
    });
  }

  /**
   * Handles a projection's failed apply. A refused commit of the live projector is expected (a newer lease: stop;
   * a rebuilt generation: resume from its checkpoint), and so is an outage of the read model or the store (resume
   * from the checkpoint once it answers): these return false. Anything else stops the projection and returns true.
   */
  private failed(entry: Running, error: unknown, live: boolean): boolean {
    // A stopped projector's commits refused or cut short (the rest of a batch a newer lease fenced off) are no fault.
    if (live && this.stopped && (error instanceof StaleCommitError || isDependencyUnavailable(error))) return false;
    if (live && isDependencyUnavailable(error)) {
      this.resumeAfterOutage(entry, error);
      return false;
    }
    if (live && error instanceof StaleCommitError && !this.stopped) {
      if (error.reason === 'fence') {
        this.options.log?.('projector: a newer lease exists, stopping', error.message);
        void this.stop().then(() => this.term.onFenced?.(error));
      } else {
        // A rebuild switched readers to a new generation: carry on from its checkpoint.
        this.options.log?.(`projection ${entry.projection.name}: switched to a rebuilt generation, resuming from its checkpoint`);
        this.startOne(entry).catch((failure) => {
          entry.failed = failure;
          this.options.log?.(`projection ${entry.projection.name} stopped`, failure);
        });
      }
      return false;
    }
    entry.failed = error;
    this.options.log?.(`projection ${entry.projection.name} stopped`, error);
    return true;
  }

  /**
   * Starts the projection again from its checkpoint after an outage cut an apply short (the commit may or may not
   * have landed: the checkpoint says which), with a growing pause between attempts, until it answers or the
   * projector stops. Logged once per outage.
   */
  private resumeAfterOutage(entry: Running, error: DependencyUnavailableError, attempt = 1): void {
    const { projection } = entry;
    if (attempt === 1) this.options.log?.(`projection ${projection.name}: ${error.message}; resuming from its checkpoint once it answers`);
    const cancel = () => {
      clearTimeout(timer);
      this.resuming.delete(cancel);
    };
    const timer = setTimeout(() => {
      cancel();
      if (this.stopped) return;
      const before = this.appliedPosition;
      // An outage once it has resumed is a new one (failed calls this again); one before is this one, still going.
      this.startOne(entry).then(
        () => {
          // The checkpoint may be ahead of what this process knew (a commit that landed without an answer): waiters
          // and the applied position hear of it even when nothing is left to apply.
          if (this.stopped) return;
          this.release();
          const after = this.appliedPosition;
          if (after > before) this.term.onApplied?.(after);
        },
        (failure: unknown) => {
          if (this.stopped) return;
          if (isDependencyUnavailable(failure)) this.resumeAfterOutage(entry, failure, attempt + 1);
          else this.failed(entry, failure, false);
        },
      );
    }, Math.min(OUTAGE_FIRST_PAUSE_MS * 2 ** (attempt - 1), OUTAGE_LONGEST_PAUSE_MS));
    this.resuming.add(cancel);
  }

  private async apply(entry: Running, events: readonly RecordedEvent[], live: boolean): Promise<void> {
    if (this.stopped) return;
    const commit = await this.fold(entry, events, live);
    if (commit === null) return;
    await this.options.readModel.commit(commit);
    if (live) this.settle([[entry, commit.checkpoint.position]]);
    else entry.applied = commit.checkpoint.position;
  }

  /** Records what committed, then tells waiters and onApplied if the lowest applied position rose. */
  private settle(committed: readonly [Running, number][]): void {
    const before = this.appliedPosition;
    for (const [entry, position] of committed) entry.applied = position;
    this.release();
    const after = this.appliedPosition;
    if (after > before) this.term.onApplied?.(after);
  }

  /**
   * Folds the batch into the projection's documents: the commit to make, or null when there is none to make now (a
   * bulk rebuild folds into memory and flushes itself; a stopped projector commits nothing).
   */
  private async fold(entry: Running, events: readonly RecordedEvent[], live: boolean): Promise<Commit | null> {
    if (this.stopped) return null;
    const { projection } = entry;
    const { readModel } = this.options;
    const handled = new Set(projection.handles);

    // Locate every document the batch touches, fetch those not yet seen in one call per collection, then fold.
    // Documents are held by collection and id (DocMap): a replay folds every event of the log, and a key string
    // made and hashed for each document at each step was a few percent of it.
    const located: RecordedEvent[] = [];
    const targets: DocTarget[] = [];
    for (const event of events) {
      if (!handled.has(event.type)) continue;
      const target = projection.locate(event);
      if (!target) continue;
      located.push(event);
      targets.push(target);
    }
    const current = new DocMap<Doc | null>();
    const load = async (wantedTargets: readonly DocTarget[]): Promise<void> => {
      const wanted = new Map<string, Set<DocId>>();
      for (const { collection, id } of wantedTargets) {
        if (current.has(collection, id)) continue;
        let ids = wanted.get(collection);
        if (!ids) wanted.set(collection, (ids = new Set()));
        ids.add(id);
      }
      await Promise.all(
        [...wanted].map(async ([collection, ids]) => {
          if (entry.bulk) {
            // Folded since the last bulk flush: not in the read model yet.
            for (const id of ids) {
              const held = entry.bulk.get(key(collection, id));
              if (held === undefined) continue;
              current.set(collection, id, held.json === undefined ? null : (JSON.parse(held.json) as Doc));
              ids.delete(id);
            }
            if (ids.size === 0) return;
          }
          const list = [...ids];
          // Each generation folds onto its own documents (a rebuild's are not the live ones).
          const docs =
            entry.generation !== undefined && readModel.generations
              ? await readModel.generations.getManyIn(entry.generation, collection, list)
              : await readModel.getMany(collection, list);
          for (let i = 0; i < list.length; i++) current.set(collection, list[i]!, docs[i] ?? null);
        }),
      );
    };
    await load(targets);

    // The documents written, in the order first touched, each named by its last target.
    const touched = new DocMap<number>();
    const written: DocTarget[] = [];
    const touch = (target: DocTarget) => {
      const at = touched.get(target.collection, target.id);
      if (at === undefined) {
        touched.set(target.collection, target.id, written.length);
        written.push(target);
      } else written[at] = target;
    };
    for (let e = 0; e < located.length; e++) {
      const event = located[e]!;
      const target = targets[e]!;
      if (!projection.related) {
        // One document: folded against its own state, reading nothing else.
        const read = ownReader(projection.name, current, [target]);
        const next = projection.evolve(current.get(target.collection, target.id) ?? null, event, withFields(target, { read }));
        current.set(target.collection, target.id, next ?? null);
        touch(target);
        continue;
      }
      // Related documents depend on state the batch may have just changed, so they are found event by event.
      const more = projection.related(event, ownReader(projection.name, current, [target]));
      const all = uniqueTargets([target, ...more]);
      if (all.length > 1) await load(all);
      // Every document of this event is folded against the others' state from before it.
      const read = ownReader(projection.name, current, all);
      const next = all.map((t) => projection.evolve(current.get(t.collection, t.id) ?? null, event, withFields(t, { read })));
      all.forEach((t, i) => {
        current.set(t.collection, t.id, next[i] ?? null);
        touch(t);
      });
    }
    const position = events[events.length - 1]!.position;
    if (entry.bulk) {
      // Serialised once here: the flush commits this JSON, and a later batch folds onto its parse (see BulkDoc).
      for (const target of written) {
        const doc = current.get(target.collection, target.id) ?? null;
        entry.bulk.set(key(target.collection, target.id), doc === null ? { target, doc: null } : { target, doc, json: JSON.stringify(doc) });
      }
      entry.bulkPosition = position;
      entry.applied = position;
      if (entry.bulk.size >= (this.options.bulkFlushDocs ?? BULK_FLUSH_DOCS)) {
        entry.bulkPosition = undefined;
        await this.flushBulk(entry, position);
      }
      return null;
    }
    const writes: DocWrite[] = written.map(({ collection, id }) => {
      const doc = current.get(collection, id) ?? null;
      return doc ? { collection, id, doc, index: projection.index?.(doc, collection) } : { collection, id, doc: null };
    });
    return {
      writes,
      checkpoint: { name: projection.name, position, version: projection.version },
      generation: entry.generation,
      fence: live ? this.term.fence : undefined,
    };
  }

  private release(): void {
    if (this.waiters.length === 0) return;
    const applied = this.appliedPosition;
    this.waiters = this.waiters.filter((waiter) => {
      if (waiter.position > applied) return true;
      clearTimeout(waiter.timer);
      waiter.resolve(true);
      return false;
    });
  }
}

/** A rebuild pass ended by a stop of the projector before it was switched in. */
class RebuildStopped extends Error {
  constructor(projections: readonly string[]) {
    super(`the projector stopped before the rebuild of ${projections.join(', ')} was switched in`);
    this.name = 'RebuildStopped';
  }
}

const key = (collection: string, id: DocId) => `${collection}\u0000${typeof id}\u0000${String(id)}`;

function uniqueTargets(targets: readonly DocTarget[]): DocTarget[] {
  const unique = new Map<string, DocTarget>();
  for (const target of targets) if (!unique.has(key(target.collection, target.id))) unique.set(key(target.collection, target.id), target);
  return [...unique.values()];
}

/**
 * Reads the event's own documents only: anything else could be loaded or not depending on how the log was
 * batched, and the fold must give the same documents however it is batched.
 */
function ownReader(name: string, current: DocMap<Doc | null>, targets: readonly DocTarget[]): ReadOwn {
  // Most events change one document, and most folds never read: no set of keys made for them.
  const only = targets.length === 1 ? targets[0]! : null;
  const allowed = only ? null : new Set(targets.map((t) => key(t.collection, t.id)));
  return (collection, id) => {
    const k = key(collection, id);
    if (only ? k !== key(only.collection, only.id) : !allowed!.has(k)) throw new Error(`projection ${name} read ${collection}/${String(id)}, which the event does not change`);
    return current.get(collection, id) ?? null;
  };
}

/**
 * Values by collection and document id, as `key` tells documents apart (1 and '1' are two documents; 0 and -0 one)
 * without making a key string for each.
 */
class DocMap<V> {
  private readonly collections = new Map<string, Map<DocId, V>>();

  get(collection: string, id: DocId): V | undefined {
    return this.collections.get(collection)?.get(id);
  }

  has(collection: string, id: DocId): boolean {
    return this.collections.get(collection)?.has(id) === true;
  }

  set(collection: string, id: DocId, value: V): void {
    let ids = this.collections.get(collection);
    if (ids === undefined) this.collections.set(collection, (ids = new Map()));
    ids.set(id, value);
  }
}

