/**
 * The read model's version as this process knows it: a number that changes whenever anything a read may see may
 * have changed. The shared response cache (src/http/responseCache.ts) keeps an answer with the version it was
 * computed at and serves it only while the version is still the same, so the version must move on:
 * - every commit, reset or generation switch this process's projector makes (`track` wraps the read model it is
 *   given), before the change starts and again once it is done: while a change is being applied the version reads
 *   as `CHANGING`, which no answer is kept at, so an answer that saw half of a change is never kept;
 * - every applied position this process hears of from another process's projector, and every generation switch
 *   (src/adapters/redis/changeNotices.ts, through the site's coordination);
 * - every write this process settles (src/site.ts), before the write answers: read-your-writes holds for the cache.
 */
import type { Commit, GenerationalReadModel, ReadModel } from '../ports/readModel';

/** What `current` reads while a change is being applied: never the version of a kept answer. */
export const CHANGING = -1;

export class ReadModelVersion {
  private value = 0;
  private applying = 0;

  /** The version now, or CHANGING while this process applies a change to the read model. */
  current(): number {
    return this.applying > 0 ? CHANGING : this.value;
  }

  /** Something a read may see has changed (or may have: an over-estimate only costs a recomputation). */
  changed(): void {
    this.value += 1;
  }

  /** Runs a change of the read model: the version moves on before it starts and again once it ends. */
  async during<T>(change: () => Promise<T>): Promise<T> {
    this.applying += 1;
    this.value += 1;
    try {
      return await change();
    } finally {
      this.applying -= 1;
      this.value += 1;
    }
  }

  /**
   * The read model with every change through it counted: commits (except bulk commits into a staged generation,
   * which nobody reads until the switch), resets, and generation switches and drops. Everything else passes through,
   * so methods the port gains later keep working.
   */
  track(readModel: ReadModel): ReadModel {
    const generations = readModel.generations ? this.trackGenerations(readModel.generations) : undefined;
    const commit = (commit: Commit) => (commit.bulk === true ? readModel.commit(commit) : this.during(() => readModel.commit(commit)));
    const reset = (name: string, collections: readonly string[]) => this.during(() => readModel.reset(name, collections));
    return new Proxy(readModel, {
      get(target, property) {
        if (property === 'commit') return commit;
        if (property === 'reset') return reset;
        if (property === 'generations') return generations;
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  }

  private trackGenerations(generations: GenerationalReadModel): GenerationalReadModel {
    const promote: GenerationalReadModel['promote'] = (name, generation, collections) => this.during(() => generations.promote(name, generation, collections));
    const dropGeneration: GenerationalReadModel['dropGeneration'] = (collections, generation) => this.during(() => generations.dropGeneration(collections, generation));
    return new Proxy(generations, {
      get(target, property) {
        if (property === 'promote') return promote;
        if (property === 'dropGeneration') return dropGeneration;
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  }
}
