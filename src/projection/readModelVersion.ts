/**
 * The read model's version as this process knows it: a number that changes whenever anything a read may see may
 * have changed. The shared response cache (src/http/responseCache.ts) keeps an answer with the version it was
 * computed at and serves it only while the version is still the same, so the version must move on:
 * - every commit, reset or generation switch this process's projector makes (`track` wraps the read model it is
 *   given; every method but the reads counts), before the change starts and again once it is done: while a change
 *   is being applied the version reads as `CHANGING`, which no answer is kept at, so an answer that saw half of a
 *   change is never kept;
 * - every applied position this process hears of from another process's projector, and every generation switch
 *   (src/adapters/redis/changeNotices.ts, through the site's coordination);
 * - every write this process settles (src/site.ts), before the write answers: read-your-writes holds for the cache.
 */
import type { Commit, ReadModel } from '../ports/readModel';

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
    this.begin();
    try {
      return await change();
    } finally {
      this.end();
    }
  }

  /**
   * The read model with every change through it counted: every method but the reads below is taken for a change
   * (commit with the commits alongside it, reset, the bulk-load hints, and whatever the port gains later), except
   * bulk commits into a staged generation, which nobody reads until the switch; of `generations`, switching and
   * dropping are changes.
   */
  track(readModel: ReadModel): ReadModel {
    const generations = readModel.generations ? this.counting(readModel.generations, GENERATION_READS) : undefined;
    const counted = this.counting(readModel, READS);
    const commit = (commit: Commit) =>
      commit.bulk === true ? readModel.commit(commit) : this.during(() => readModel.commit(commit));
    return new Proxy(readModel, {
      get(_target, property) {
        if (property === 'generations') return generations;
        if (property === 'commit') return commit;
        return Reflect.get(counted, property);
      },
    });
  }

  private begin(): void {
    this.applying += 1;
    this.value += 1;
  }

  private end(): void {
    this.applying -= 1;
    this.value += 1;
  }

  /** `target` with each method not named in `reads` run as a change (synchronous or not); bound to `target`. */
  private counting<T extends object>(target: T, reads: ReadonlySet<string>): T {
    const wrapped = new Map<PropertyKey, unknown>();
    return new Proxy(target, {
      get: (object, property) => {
        const value: unknown = Reflect.get(object, property, object);
        if (typeof value !== 'function') return value;
        let method = wrapped.get(property);
        if (method === undefined) {
          const fn = value as (...args: unknown[]) => unknown;
          method =
            typeof property === 'string' && reads.has(property)
              ? fn.bind(object)
              : (...args: unknown[]) => {
                  this.begin();
                  let result: unknown;
                  try {
                    result = fn.apply(object, args);
                  } catch (error) {
                    this.end();
                    throw error;
                  }
                  if (result instanceof Promise) return result.finally(() => this.end());
                  this.end();
                  return result;
                };
          wrapped.set(property, method);
        }
        return method;
      },
    });
  }
}

/**
 * Values computed from the read model, kept for the version they were computed at: `kept()` gives those of the
 * current version (emptied whenever it has moved on), and a value is kept only if the version neither moved nor read
 * as CHANGING while it was computed (`keepable`), so nothing that saw half of a change, or the state before one, is
 * ever served after it. Used by the document cache (src/projection/documentCache.ts) and the site's memo of which
 * projections are behind (src/site.ts).
 */
export class PerVersion<V> {
  private keptAt = Number.NaN;
  private readonly values = new Map<string, V>();

  constructor(private readonly version: ReadModelVersion) {}

  /** The values kept at the current version, or null while a change is being applied (nothing is kept then). */
  kept(): Map<string, V> | null {
    const now = this.version.current();
    if (now === CHANGING) return null;
    if (now !== this.keptAt) {
      this.values.clear();
      this.keptAt = now;
    }
    return this.values;
  }

  /** Whether a value computed from the version read as `at` before it started may be kept now. */
  keepable(at: number): boolean {
    return at !== CHANGING && this.version.current() === at;
  }
}

/** ReadModel methods that change nothing. */
const READS: ReadonlySet<string> = new Set(['get', 'peek', 'getMany', 'query', 'checkpoint', 'close']);
/** GenerationalReadModel methods that change nothing anyone reads (a staged generation is read by nobody). */
const GENERATION_READS: ReadonlySet<string> = new Set([
  'liveGeneration',
  'getManyIn',
  'stageGeneration',
  'stagedCheckpoint',
]);
