/**
 * The projector's core: the projections' state, the shared subscription that feeds them all from one read of the
 * log, each projection's own subscription, the fold of a batch into documents and its commit, failures and outages,
 * and the applied position writes wait for. The rebuild passes (rebuildPass.ts), the epoch keeping
 * (projectorEpoch.ts) and the runs (runner.ts) build on it.
 */
import type { RecordedEvent, Subscription } from '../ports/eventStore';
import { StaleCommitError } from '../ports/readModel';
import { isDependencyUnavailable } from '../ports/unavailable';
import type { DependencyUnavailableError } from '../ports/unavailable';
import type { Commit, Doc, DocId, DocWrite } from '../ports/readModel';
import { deepFreeze } from '../core/deepFreeze';
import type { DocTarget, Projection, ReadOwn } from './projection';
import type { ProjectorOptions, ProjectorStartOptions } from './projectorOptions';

export interface Running {
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

interface Waiter {
  position: number;
  resolve(reached: boolean): void;
  timer: NodeJS.Timeout;
}

export abstract class ProjectorCore {
  protected readonly running = new Map<string, Running>();
  private waiters: Waiter[] = [];
  /** Cancels of the pending deletions of retired generations (see retire). */
  protected readonly retiring = new Set<() => void>();
  /** Cancels of the pending resumptions of projections an outage interrupted (see resumeAfterOutage). */
  private readonly resuming = new Set<() => void>();
  private sharedSubscription: Subscription | null = null;
  /** The shared subscription's batch in progress: whoever takes a projection out of it waits for this. */
  private sharedDelivery: Promise<unknown> = Promise.resolve();
  protected stopped = false;
  protected term: ProjectorStartOptions = {};
  /** Ends a start waiting for the shared subscription to catch up, when the projector is stopped first. */
  private abortStart: (() => void) | null = null;
  /** Ends the rebuild passes in progress (see subscribePass), when the projector is stopped first. */
  protected readonly passes = new Set<() => void>();
  /** Between start() and stop(): the epoch's timer may restart the projector (a wiped read model). */
  protected active = false;
  /** Moves on at every run and halt: a run that finds it moved was overtaken and ends. */
  protected runs = 0;
  /** The last run caught up (with the projections not being rebuilt). */
  protected caughtUp = false;
  protected epochTimer: NodeJS.Timeout | null = null;

  constructor(protected readonly options: ProjectorOptions) {
    for (const projection of options.projections) {
      if (this.running.has(projection.name)) throw new Error(`two projections are named "${projection.name}"`);
      this.running.set(projection.name, { projection, applied: 0, subscription: null, shared: false, failed: null });
    }
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
    return [...this.running.values()]
      .filter((e) => e.failed !== null)
      .map((e) => ({ projection: e.projection.name, error: e.failed }));
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

  /** Stops applying events, for good (a lease term ended, or the process stops); start() runs it again. */
  async stop(): Promise<void> {
    this.active = false;
    if (this.epochTimer !== null) clearInterval(this.epochTimer);
    this.epochTimer = null;
    await this.halt();
  }

  /** Stops the run in progress: subscriptions closed, waiters told no. */
  protected async halt(): Promise<void> {
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
  protected async prepare(entry: Running): Promise<'ready' | 'rebuild' | 'stopped'> {
    const { readModel } = this.options;
    const { projection } = entry;
    let checkpoint = await readModel.checkpoint(projection.name);
    let after = 0;
    if (checkpoint && checkpoint.version > projection.version && readModel.generations) {
      // A newer deployment rebuilt it: going back would fight it. Serve nothing from here; /readyz reports it.
      entry.failed = new Error(
        `projection ${projection.name}: version ${checkpoint.version} is live, this projector has ${projection.version}`,
      );
      this.options.log?.((entry.failed as Error).message);
      return 'stopped';
    }
    if (checkpoint && checkpoint.version !== projection.version) {
      this.options.log?.(
        `projection ${projection.name}: version ${checkpoint.version} -> ${projection.version}, rebuilding`,
      );
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
   * One subscription for every projection, from the lowest checkpoint: each batch is read and parsed once, and
   * each projection applies the part after its own checkpoint (concurrently). A projection whose apply fails
   * leaves it and is handled as on its own subscription. Resolves once caught up with the log as it was.
   */
  protected subscribeShared(entries: Running[]): Promise<void> {
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
        const ownEvents = (entry: Running) =>
          entry.applied < first ? events : events.filter((event) => event.position > entry.applied);
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
  protected async leaveShared(entry: Running): Promise<void> {
    if (!entry.shared) return;
    entry.shared = false;
    await this.sharedDelivery.catch(() => undefined);
  }

  /** Subscribes after `after`; resolves when caught up with the log as it was at subscription time. */
  protected subscribe(
    entry: Running,
    after: number,
    onApplied?: (applied: number) => void,
    live = true,
  ): Promise<void> {
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
  protected serially<T>(entry: Running, task: () => Promise<T>): Promise<T> {
    const next = (entry.chain ?? Promise.resolve()).then(task);
    entry.chain = next.catch(() => undefined);
    return next;
  }

  /** Commits the documents a bulk rebuild folded, with the checkpoint of the last event folded. */
  protected async flushBulk(entry: Running, position: number): Promise<void> {
    const { projection } = entry;
    const writes: DocWrite[] = [];
    for (const { target, doc, json } of entry.bulk!.values()) {
      const { collection, id } = target;
      writes.push(
        doc ? { collection, id, doc, json, index: projection.index?.(doc, collection) } : { collection, id, doc: null },
      );
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
  protected failed(entry: Running, error: unknown, live: boolean): boolean {
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
        this.options.log?.(
          `projection ${entry.projection.name}: switched to a rebuilt generation, resuming from its checkpoint`,
        );
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
    if (attempt === 1)
      this.options.log?.(
        `projection ${projection.name}: ${error.message}; resuming from its checkpoint once it answers`,
      );
    const cancel = () => {
      clearTimeout(timer);
      this.resuming.delete(cancel);
    };
    const timer = setTimeout(
      () => {
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
      },
      Math.min(OUTAGE_FIRST_PAUSE_MS * 2 ** (attempt - 1), OUTAGE_LONGEST_PAUSE_MS),
    );
    this.resuming.add(cancel);
  }

  protected async apply(entry: Running, events: readonly RecordedEvent[], live: boolean): Promise<void> {
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
      // Events are facts: every projection gets their data frozen throughout, so a fold that changed one fails instead
      // of changing what the next projection reads. It also keeps plain folds fast: in V8 (Node 20) a spread copy of an
      // unfrozen parsed object given fields its source lacks (`{ ...data.post, id, type }`, a document made from its
      // creation event) took some 20-50 µs, most of a replay's fold; over a frozen source, a few µs, freezing included.
      deepFreeze(event.data);
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
        const next = projection.evolve(current.get(target.collection, target.id) ?? null, event, {
          collection: target.collection,
          id: target.id,
          read,
        });
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
      const next = all.map((t) =>
        projection.evolve(current.get(t.collection, t.id) ?? null, event, { collection: t.collection, id: t.id, read }),
      );
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
        entry.bulk.set(
          key(target.collection, target.id),
          doc === null ? { target, doc: null } : { target, doc, json: JSON.stringify(doc) },
        );
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

  /** Rebuilds projections into staged generations, then feeds each from a subscription of its own (rebuildPass.ts). */
  protected abstract rebuildAndJoin(entries: readonly Running[]): Promise<void>;
}

const key = (collection: string, id: DocId) => `${collection}\u0000${typeof id}\u0000${String(id)}`;

function uniqueTargets(targets: readonly DocTarget[]): DocTarget[] {
  const unique = new Map<string, DocTarget>();
  for (const target of targets)
    if (!unique.has(key(target.collection, target.id))) unique.set(key(target.collection, target.id), target);
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
    if (only ? k !== key(only.collection, only.id) : !allowed!.has(k))
      throw new Error(`projection ${name} read ${collection}/${String(id)}, which the event does not change`);
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
