/**
 * What each cache of the budget (src/caches/budget.ts) holds against its bound, on /metrics: the composition roots
 * hand every cache they make to `watch`, and at each scrape the gauges are set from the caches themselves (nothing
 * is counted on the hot path). A cache with several instances (one per post type, per endpoint…) is summed, and so
 * is its bound.
 */
import type { MetricsRegistry } from './registry';
import type { CacheBudget, CacheName, CacheSize } from '../caches/budget';

export class CacheMeter {
  private readonly watched = new Map<CacheName, (() => CacheSize)[]>();

  constructor(
    readonly budget: CacheBudget,
    registry: MetricsRegistry,
  ) {
    const entries = registry.gauge('palimpsest_cache_entries', 'Entries a read-side cache holds.', ['cache']);
    const bytes = registry.gauge('palimpsest_cache_bytes', 'Bytes a read-side cache holds (where it counts them).', [
      'cache',
    ]);
    const maxEntries = registry.gauge(
      'palimpsest_cache_max_entries',
      'Most entries a read-side cache may hold (where it counts them), from the cache budget (CACHE_MEMORY_MB).',
      ['cache'],
    );
    const maxBytes = registry.gauge(
      'palimpsest_cache_max_bytes',
      "A read-side cache's share of the cache budget (CACHE_MEMORY_MB), in bytes.",
      ['cache'],
    );
    registry.collect(() => {
      for (const [cache, sizes] of this.watched) {
        let held = 0;
        let heldBytes = 0;
        let countsBytes = false;
        let instances = 0;
        for (const size of sizes) {
          const now = size();
          held += now.entries;
          instances += now.instances ?? 1;
          if (now.bytes !== undefined) {
            heldBytes += now.bytes;
            countsBytes = true;
          }
        }
        const bound = budget.bound(cache);
        entries.set({ cache }, held);
        if (countsBytes) bytes.set({ cache }, heldBytes);
        if (Number.isFinite(bound.entries)) maxEntries.set({ cache }, bound.entries * instances);
        maxBytes.set({ cache }, bound.bytes * instances);
      }
    });
  }

  /** Reports one instance of a cache on /metrics from now on. */
  watch(cache: CacheName, size: () => CacheSize): void {
    let sizes = this.watched.get(cache);
    if (sizes === undefined) this.watched.set(cache, (sizes = []));
    sizes.push(size);
  }
}
