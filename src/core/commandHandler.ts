import { WrongExpectedRevisionError } from '../ports/eventStore';
import type { EventMetadata, EventStore, ExpectedRevision, NewEvent, RecordedEvent } from '../ports/eventStore';
import { ConcurrentChange } from './errors';
import { CacheBudget } from '../caches/budget';
import type { CacheSize } from '../caches/budget';

/** An event as a decider emits it: what happened, without the envelope the store adds. */
export interface DomainEvent<Type extends string = string, Data = unknown> {
  type: Type;
  data: Data;
}

/**
 * A decider in the emmett sense: pure functions only. `decide` may throw a DomainError to reject a command;
 * it never reads the clock, generates ids or knows the user except through the command.
 */
export interface Decider<State, Command, Event extends DomainEvent = DomainEvent> {
  initialState(): State;
  evolve(state: State, event: Event): State;
  decide(command: Command, state: State): Event[];
}

export interface HandleResult<State> {
  /** The events appended (empty when the decision was a no-op). */
  events: RecordedEvent[];
  /** State after the new events. */
  state: State;
  /** Global position of the last appended event (0 when nothing was appended). */
  position: number;
}

interface CachedState {
  revision: number;
  state: unknown;
}

/**
 * Runs commands against streams: load, fold, decide, append with the expected revision; on a conflict the
 * whole decision is retried from fresh state, a bounded number of times, then the caller gets a 409.
 *
 * Folded states are cached per stream (bounded) and brought up to date by reading only the events after
 * the cached revision, so a hot stream is not re-read from its start on every command.
 */
export class CommandHandler {
  private readonly cache = new Map<string, CachedState>();
  private readonly statesKept: number;

  constructor(
    private readonly store: EventStore,
    private readonly options: {
      maxRetries?: number;
      /**
       * Folded states kept (default: the default cache budget's `commandStates`, src/caches/budget.ts). A state holds
       * the whole item (a post's content and its latest revision's text, ~2.5 KB for the benchmark's posts): 10,000
       * of them were ~25 MB of live heap after seeding, for streams created once and never written again. A stream
       * not kept is read back from its start, a few events.
       */
      cacheSize?: number;
    } = {},
  ) {
    this.statesKept = options.cacheSize ?? CacheBudget.defaults('memory').entries('commandStates');
  }

  /** The folded states kept now. */
  held(): CacheSize {
    return { entries: this.cache.size };
  }

  async load<State, Event extends DomainEvent>(
    streamId: string,
    decider: Pick<Decider<State, never, Event>, 'initialState' | 'evolve'>,
  ): Promise<{ state: State; revision: number | 'no_stream' }> {
    const cached = this.cache.get(streamId);
    let state = (cached ? cached.state : decider.initialState()) as State;
    let revision: number | 'no_stream' = cached ? cached.revision : 'no_stream';
    const fresh = await this.store.readStream(streamId, cached ? { fromRevision: cached.revision + 1 } : {});
    for (const event of fresh) {
      state = decider.evolve(state, event as unknown as Event);
      revision = event.revision;
    }
    if (revision !== 'no_stream' && fresh.length > 0) this.remember(streamId, { revision, state });
    return { state, revision };
  }

  /**
   * Decides and appends. `command` is either the command itself or a preparation step that builds it from
   * the current state: that is where effects the decision needs happen (reserving an id only when the state
   * says one is needed, claiming a slug), outside the pure decider. A retry after a conflict prepares again.
   */
  async handle<State, Command, Event extends DomainEvent>(
    streamId: string,
    decider: Decider<State, Command, Event>,
    command: Command | ((state: State) => Promise<Command>),
    metadata: EventMetadata,
  ): Promise<HandleResult<State>> {
    const maxRetries = this.options.maxRetries ?? 8;
    for (let attempt = 0; ; attempt++) {
      const { state, revision } = await this.load(streamId, decider);
      const prepared =
        typeof command === 'function' ? await (command as (state: State) => Promise<Command>)(state) : command;
      const decided = decider.decide(prepared, state);
      if (decided.length === 0) return { events: [], state, position: 0 };
      const expectedRevision: ExpectedRevision = revision;
      try {
        const toAppend: NewEvent[] = decided.map((event) => ({ type: event.type, data: event.data, metadata }));
        const result = await this.store.appendToStream(streamId, toAppend, { expectedRevision });
        let next = state;
        for (const event of decided) next = decider.evolve(next, event);
        this.remember(streamId, { revision: result.nextExpectedRevision, state: next });
        const firstRevision = result.nextExpectedRevision - decided.length + 1;
        const firstPosition = result.position - decided.length + 1;
        const events = decided.map((event, i) => ({
          id: '',
          streamId,
          revision: firstRevision + i,
          // Positions of one append are contiguous on every adapter we have; only the last one is relied upon.
          position: firstPosition + i,
          type: event.type,
          data: event.data,
          metadata,
        }));
        return { events, state: next, position: result.position };
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
        this.cache.delete(streamId);
        if (attempt >= maxRetries) {
          throw new ConcurrentChange(streamId);
        }
        // Spread competing retries apart a little so they do not collide in lockstep.
        await new Promise((resolve) => setTimeout(resolve, Math.random() * (attempt + 1) * 2));
      }
    }
  }

  /** Forget cached state (after a rebuild or in tests). */
  forget(streamId?: string): void {
    if (streamId === undefined) this.cache.clear();
    else this.cache.delete(streamId);
  }

  private remember(streamId: string, entry: CachedState): void {
    const limit = this.statesKept;
    this.cache.delete(streamId);
    this.cache.set(streamId, entry);
    if (this.cache.size > limit) {
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.cache.delete(oldest);
    }
  }
}
