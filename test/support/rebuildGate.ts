/**
 * Test helpers for what happens while a projection rebuilds: a store whose rebuild subscription is held, and a
 * wait for a condition.
 */
import * as assert from 'uvu/assert';
import type { EventStore, SubscribeToAllOptions } from '../../src/ports/eventStore';

export interface RebuildGate {
  /**
   * The store to give the projector: a subscription from the start of the log (a rebuild's; the tests' projectors
   * resume every other one from a checkpoint) waits at its first batch.
   */
  store: EventStore;
  state: { held: boolean; released: boolean };
  release(): void;
}

/**
 * Holds the rebuild of `store`'s projector at its first batch until released (or after `safetyReleaseMs`, so a test
 * that fails before releasing does not hang). Closing the gated view leaves the store open for its owner to close.
 */
export function holdRebuild(store: EventStore, options: { safetyReleaseMs?: number } = {}): RebuildGate {
  let open = () => {};
  const released = new Promise<void>((resolve) => (open = resolve));
  const state = { held: false, released: false };
  const view: EventStore = new Proxy(store, {
    get(target, property) {
      if (property === 'close') return async () => {};
      if (property !== 'subscribeToAll') return Reflect.get(target, property);
      return (subscription: SubscribeToAllOptions) =>
        target.subscribeToAll(
          (subscription.after ?? 0) > 0
            ? subscription
            : {
                ...subscription,
                onEvents: async (events) => {
                  state.held = true;
                  await released;
                  return subscription.onEvents(events);
                },
              },
        );
    },
  });
  const timer = options.safetyReleaseMs === undefined ? null : setTimeout(() => release(), options.safetyReleaseMs);
  const release = () => {
    if (timer) clearTimeout(timer);
    state.released = true;
    open();
  };
  return { store: view, state, release };
}

/** Resolves once `condition` holds (checked every 10 ms); fails after `limitMs`, which only a broken behaviour reaches. */
export async function until(
  condition: () => boolean | Promise<boolean>,
  what: string,
  limitMs = 10_000,
): Promise<void> {
  for (let waited = 0; !(await condition()); waited += 10) {
    if (waited > limitMs) assert.unreachable(`never: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
