/**
 * The epoch keeping of the projector (ProjectorOptions.epoch): the read model judged against the store before each
 * run and every `checkMs` after, and the epoch recorded once caught up.
 */
import { StaleCommitError } from '../ports/readModel';
import type { ReadModel } from '../ports/readModel';
import {
  EPOCH_CHECKPOINT,
  EPOCH_COLLECTION,
  epochAt,
  epochCommit,
  isRefused,
  judgeReadModel,
  readEpoch,
  sameEpoch,
} from './epoch';
import type { Epoch } from './epoch';
import { RebuildingProjector } from './rebuildPass';

export abstract class EpochKeepingProjector extends RebuildingProjector {
  private judging = false;
  private refused: string | null = null;

  private get epochReadModel(): ReadModel {
    return this.options.epoch?.readModel ?? this.options.readModel;
  }

  /** Why the projector applies nothing (a read model built from another log, or ahead of the store), or null. */
  get refusal(): string | null {
    return this.refused;
  }

  /**
   * Judges the read model before a run: a wiped one is cleared (the projections then replay the whole log), and one
   * that must not be overwritten is refused. Null when the run must not go on; otherwise the epoch the read model
   * holds now (none after clearing it).
   */
  protected async judgeBeforeRun(): Promise<{ epoch: Epoch | null } | null> {
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
      if (built.length > 0)
        log?.(`projector: ${verdict.reason}; clearing ${built.map((entry) => entry.projection.name).join(', ')}`);
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
  protected async recordEpoch(judged: Epoch | null): Promise<void> {
    const { store, epoch: keeping, log } = this.options;
    if (!keeping) return;
    const readModel = this.epochReadModel;
    const position = this.appliedPosition;
    try {
      const epoch = await epochAt(store, position, keeping.now());
      if (this.stopped) return;
      if (!sameEpoch(await readEpoch(readModel), judged)) return;
      await readModel.commit({
        ...epochCommit(epoch, this.term.fence),
        expectedPosition: judged === null ? null : judged.position,
      });
    } catch (error) {
      // Removed since it was read: the next judgement finds it gone.
      if (error instanceof StaleCommitError && error.reason === 'checkpoint') return;
      // A newer lease (fence), or the store gone: the next judgement, or the next term, sees to it.
      log?.("projector: the read model's epoch was not recorded", error instanceof Error ? error.message : error);
      return;
    }
    await keeping.onRecorded?.();
  }

  /**
   * Every `epoch.checkMs` while started: judges the read model again. A read model wiped under the running projector
   * is rebuilt (the run starts over, clearing it first); one found built from another log or ahead of the store stops
   * the projector until that changes; otherwise the epoch is recorded again once the applied position has moved.
   */
  protected async keepEpoch(): Promise<void> {
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
      if (this.active)
        log?.('projector: could not judge the read model', error instanceof Error ? error.message : error);
    } finally {
      this.judging = false;
    }
  }

  /** Stops the run in progress and starts another for the same term (runner.ts). */
  protected abstract restart(): Promise<void>;
}
