/**
 * The caches of read-side data, and the one budget they share. An operator says how much memory they may take
 * together (CACHE_MEMORY_MB); each named cache gets its share of it, and a cache that counts entries gets as many as
 * its share holds at its stated average entry size. Every bound a cache keeps comes from here.
 *
 * Shares are written as MiB at the default total of the read-model engine in use, so at the default every cache
 * keeps what it was tuned to keep; another total scales every share alike. The two engines differ: with Redis, a
 * parsed document saves a round trip and a JSON parse, so far more are kept, and documents read by id are kept per
 * read-model version (src/projection/documentCache.ts); in process, reading a document is already cheap.
 *
 * Some caches exist once per something. Those per post type, endpoint or rendering's options have their share split
 * over the number of them a site is planned with (`instances`); those per collection or time zone (text matches,
 * offsets: a site has one zone and a few searched collections) give each one the whole share. More of them than
 * planned take more than the share: the gauges (src/metrics/cacheMeter.ts) show it.
 *
 * Not in it, as no traffic grows them past a few hundred KB: the Redis engine's key prefixes (one per collection,
 * generations.ts), the tables that intern strings (variant keys, present.ts; values rows share, collection.ts), the
 * admission windows (hashes of keys a cache did not keep, src/core/admissionWindow.ts) and what one request keeps
 * for itself (a page's ancestors, extras.ts).
 */

export const CACHE_NAMES = [
  'responses',
  'presentations',
  'documents',
  'parsedDocuments',
  'commandStates',
  'validatedArgs',
  'renderedText',
  'textMatches',
  'timezoneOffsets',
  'passwordHashes',
  'remoteEmbeds',
] as const;

export type CacheName = (typeof CACHE_NAMES)[number];

/** The read-model engine the caches are laid out for. */
export type ReadModelEngine = 'memory' | 'redis';

interface CacheLayout {
  /** What it keeps, where (for the documentation and the gauges' reader). */
  what: string;
  /** MiB of the default total, per engine (0: the engine has no such cache). */
  mib: Record<ReadModelEngine, number>;
  /** Bytes one entry takes, on average, for a cache that counts entries; absent for one that counts bytes. */
  averageEntryBytes?: number;
  /** How many of it a site is planned with; the share is theirs together. Default 1. */
  instances?: number;
}

const KIB = 1024;
const MIB = 1024 * KIB;

/** Each cache's share. Averages are of the benchmark's posts (~2.8 KB of JSON each, docs/performance.md). */
export const CACHE_LAYOUT: Readonly<Record<CacheName, CacheLayout>> = {
  responses: {
    what: 'anonymous GET answers as written, per URL (src/http/responseCache.ts)',
    mib: { memory: 64, redis: 64 },
    // Counted in bytes and in entries: a list page is far larger than an item.
    averageEntryBytes: 32 * KIB,
  },
  presentations: {
    what: 'presented post items, per document and variant, one cache per post type (src/resources/content/present.ts)',
    mib: { memory: 96, redis: 96 },
    // Posts, pages and reusable blocks.
    instances: 3,
  },
  documents: {
    what: 'documents read by id, kept while the read-model version stands (src/projection/documentCache.ts)',
    mib: { memory: 0, redis: 20 },
    // Mostly the same frozen documents the parse cache holds: a key and a map slot each.
    averageEntryBytes: KIB,
  },
  parsedDocuments: {
    what: "the read model's parsed, frozen documents (src/readModel/memory|redis/readModel.ts)",
    mib: { memory: 16, redis: 156 },
    averageEntryBytes: 8 * KIB,
  },
  commandStates: {
    what: 'folded stream states the command handler decides on (src/core/commandHandler.ts)',
    mib: { memory: 4, redis: 4 },
    averageEntryBytes: 4 * KIB,
  },
  validatedArgs: {
    what: 'validated query arguments per endpoint and URL (src/rest/dispatch.ts)',
    mib: { memory: 32, redis: 32 },
    averageEntryBytes: 512,
    // The endpoints read most: the item and list routes of posts and pages.
    instances: 4,
  },
  renderedText: {
    what: 'rendered texts per kind of rendering and options, in two generations (src/text/render.ts)',
    mib: { memory: 24, redis: 24 },
    averageEntryBytes: 3 * KIB,
    instances: 4,
  },
  textMatches: {
    what: "the in-memory read model's recent text-search matches per collection (src/readModel/memory/textSearch.ts)",
    mib: { memory: 16, redis: 0 },
    averageEntryBytes: 512 * KIB,
  },
  timezoneOffsets: {
    what: 'UTC offsets per time zone and 6-hour slice (src/text/dates.ts)',
    mib: { memory: 2, redis: 2 },
    averageEntryBytes: 40,
  },
  passwordHashes: {
    what: 'HMACs of presented application passwords (src/rest/authenticate.ts)',
    mib: { memory: 1, redis: 1 },
    averageEntryBytes: KIB,
  },
  remoteEmbeds: {
    what: "other sites' oEmbed answers, kept a day (src/resources/oembed/remote.ts)",
    mib: { memory: 1, redis: 1 },
    averageEntryBytes: 2 * KIB,
  },
};

/** The default total in MiB for an engine: the sum of its shares. */
export const defaultCacheMiB = (engine: ReadModelEngine): number =>
  CACHE_NAMES.reduce((sum, name) => sum + CACHE_LAYOUT[name].mib[engine], 0);

/** One instance's bound: most entries, and most bytes where the cache counts them. */
export interface CacheBound {
  entries: number;
  bytes: number;
}

export interface CacheBudgetOptions {
  engine: ReadModelEngine;
  /** The total in MiB (CACHE_MEMORY_MB); default defaultCacheMiB(engine). */
  totalMiB?: number;
  /** Caches switched off (CACHES_OFF): each keeps nothing. */
  off?: readonly CacheName[];
  /** Bounds given outright, for tests that need a small cache; the rest keep their share. */
  bounds?: Partial<Record<CacheName, Partial<CacheBound>>>;
}

export class CacheBudget {
  readonly engine: ReadModelEngine;
  /** The total, in bytes. */
  readonly totalBytes: number;
  private readonly bounds = new Map<CacheName, CacheBound>();

  constructor(options: CacheBudgetOptions) {
    const { engine } = options;
    const defaultMiB = defaultCacheMiB(engine);
    const totalMiB = options.totalMiB ?? defaultMiB;
    if (!Number.isFinite(totalMiB) || totalMiB <= 0)
      throw new RangeError(`the cache budget must be a positive number of MiB, got ${totalMiB}`);
    this.engine = engine;
    this.totalBytes = Math.floor(totalMiB * MIB);
    const off = new Set(options.off ?? []);
    for (const name of CACHE_NAMES) {
      const layout = CACHE_LAYOUT[name];
      const share = Math.floor((this.totalBytes * layout.mib[engine]) / defaultMiB);
      const perInstance = off.has(name) ? 0 : Math.floor(share / (layout.instances ?? 1));
      // A cache bounded by bytes alone holds any number of entries within them (none when off).
      const entries =
        layout.averageEntryBytes !== undefined
          ? Math.floor(perInstance / layout.averageEntryBytes)
          : perInstance === 0
            ? 0
            : Infinity;
      const bound: CacheBound = { bytes: perInstance, entries };
      const given = options.bounds?.[name];
      this.bounds.set(name, { ...bound, ...given });
    }
  }

  /** The site's budget when none is configured. */
  static defaults(engine: ReadModelEngine): CacheBudget {
    return engine === 'memory' ? DEFAULT_MEMORY_BUDGET : DEFAULT_REDIS_BUDGET;
  }

  /** The bound of one instance of a cache (0 entries and 0 bytes when switched off). */
  bound(name: CacheName): CacheBound {
    return this.bounds.get(name)!;
  }

  /** Most entries one instance of a cache keeps. */
  entries(name: CacheName): number {
    return this.bound(name).entries;
  }

  /** Most bytes one instance of a cache keeps (its share of the total over its instances). */
  bytes(name: CacheName): number {
    return this.bound(name).bytes;
  }

  /** The bytes of the total a cache's share is, over all its planned instances. */
  share(name: CacheName): number {
    return this.bytes(name) * (CACHE_LAYOUT[name].instances ?? 1);
  }
}

const DEFAULT_MEMORY_BUDGET = new CacheBudget({ engine: 'memory' });
const DEFAULT_REDIS_BUDGET = new CacheBudget({ engine: 'redis' });

/** Parses CACHES_OFF: cache names, comma-separated, or `all`. Throws on a name that is not a cache's. */
export function parseCachesOff(value: string | undefined): CacheName[] {
  const names = (value ?? '')
    .split(/[\s,]+/)
    .filter((name) => name !== '')
    .map((name) => name.trim());
  if (names.includes('all')) return [...CACHE_NAMES];
  const unknown = names.filter((name) => !(CACHE_NAMES as readonly string[]).includes(name));
  if (unknown.length > 0)
    throw new RangeError(`no cache is named ${unknown.join(', ')} (the caches: ${CACHE_NAMES.join(', ')}, or all)`);
  return names as CacheName[];
}

/** What a cache holds now; `bytes` where it counts them; `instances` where one report covers several (default 1). */
export interface CacheSize {
  entries: number;
  bytes?: number;
  instances?: number;
}
