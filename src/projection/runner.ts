/**
 * The projector: feeds the global log to every projection and commits each batch of document changes
 * together with the projection's checkpoint, atomically, so a crash neither skips nor repeats an event.
 * It also answers "has everything up to position P been applied?", which is how a write waits before it
 * answers (read-your-writes).
 *
 * Projector is built in layers: projectorCore.ts (the subscriptions, the fold and commit of a batch, failures and
 * outages, the applied position), rebuildPass.ts (rebuilds into staged generations or in place), projectorEpoch.ts
 * (the read model's epoch) and here the runs: start, run, restart.
 */
import type { Epoch } from './epoch';
import type { ProjectorStartOptions } from './projectorOptions';
import { EpochKeepingProjector } from './projectorEpoch';

export class Projector extends EpochKeepingProjector {
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

  /** Stops the run in progress and starts another for the same term (unless stopped meanwhile). */
  protected async restart(): Promise<void> {
    await this.halt();
    if (!this.active) return;
    try {
      await this.run();
    } catch (error) {
      this.options.log?.('projector: restart failed', error);
    }
  }
}
