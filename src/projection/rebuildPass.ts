/**
 * The rebuild passes: projections refolded from the whole log in one pass, into staged generations switched in once
 * caught up (or in place, on a read model without generations), with their progress, and the retirement of the
 * generations they replaced.
 */
import type { Projection } from './projection';
import type { RebuildProgress } from './projectorOptions';
import { ProjectorCore } from './projectorCore';
import type { Running } from './projectorCore';

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
    return {
      projection,
      applied: this.applied,
      head: this.head,
      eventsPerSecond,
      projections: this.names,
      secondsLeft,
    };
  }
}

export abstract class RebuildingProjector extends ProjectorCore {
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
  async rebuildAll(
    names: readonly string[],
    onProgress?: (progress: RebuildProgress) => void,
    onRebuilt?: (progress: RebuildProgress) => void,
  ): Promise<RebuildProgress[]> {
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
  private async rebuildInPlace(
    entries: Running[],
    onProgress?: (progress: RebuildProgress) => void,
    onRebuilt?: (progress: RebuildProgress) => void,
  ): Promise<RebuildProgress[]> {
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
    const pass = new PassProgress(
      entries.map((entry) => entry.projection.name),
      await store.headPosition(),
      (progress) => {
        onProgress?.(progress);
        this.options.onRebuildProgress?.(progress);
      },
    );
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
   * Rebuilds projections whose version changed into staged generations (their old documents keep serving, as they
   * were), in one pass over the log; switches readers to each once the pass has caught up, then feeds each from a
   * subscription of its own. Until one has caught up there, writes do not wait for it.
   */
  protected async rebuildAndJoin(entries: readonly Running[]): Promise<void> {
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
        else if (state === 'rebuild')
          throw new Error(
            `projection ${projection.name}: the rebuilt generation was replaced by one of another version`,
          );
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
          this.retire([{ projection: entry.projection, generation }]).catch((error) =>
            this.options.log?.(`projection ${progress.projection}: old documents not deleted`, error),
          );
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
        builds.push({
          staged: {
            projection,
            applied: 0,
            subscription: null,
            shared: false,
            failed: null,
            generation,
            bulk: new Map(),
          },
          promoted: false,
        });
      }
      const staged = builds.map((build) => build.staged);
      const pass = new PassProgress(
        projections.map((projection) => projection.name),
        await store.headPosition(),
        (progress) => {
          onProgress?.(progress);
          this.options.onRebuildProgress?.(progress);
        },
      );
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
          while (entry.applied < live && entry.failed === null && !stopped())
            await new Promise((resolve) => setTimeout(resolve, 20));
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
      await Promise.all(
        builds
          .filter((build) => !build.promoted)
          .map(({ staged }) =>
            generations.abandonGeneration?.(staged.projection.name, staged.generation!).catch(() => undefined),
          ),
      );
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
  private subscribePass(
    entries: readonly Running[],
    live: boolean,
    onApplied: (applied: number) => void,
  ): Promise<void> {
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
            feeding.map((entry) =>
              this.serially(entry, () =>
                entry.retired === true ? Promise.resolve() : this.apply(entry, events, live),
              ).catch((error) => failed(entry, error)),
            ),
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
    await this.options.readModel.generations?.dropGenerations(
      retired.map(({ projection, generation }) => ({ collections: projection.collections, generation })),
    );
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
}

/** A rebuild pass ended by a stop of the projector before it was switched in. */
class RebuildStopped extends Error {
  constructor(projections: readonly string[]) {
    super(`the projector stopped before the rebuild of ${projections.join(', ')} was switched in`);
    this.name = 'RebuildStopped';
  }
}
