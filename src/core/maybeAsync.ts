/**
 * A value at once, or a promise of it. The common path of a read has everything in memory (the in-memory read model,
 * a kept verdict, a kept document): answering it without a promise per step saves the allocations and the microtask
 * turns of a dozen `async` calls per request. A step that has to wait returns the promise, and its callers go on
 * after it.
 */
export type MaybeAsync<T> = T | Promise<T>;

export const isPromise = <T>(value: MaybeAsync<T>): value is Promise<T> => value instanceof Promise;
