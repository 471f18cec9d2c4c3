/**
 * Generations of the Redis read model (rebuilds without downtime; the keys are described in readModel.ts): which
 * generation each collection is served from, the build leases of the generations this process stages, and the
 * port's GenerationalReadModel (stage, promote, abandon, drop) over STAGE and PROMOTE (lua/stage.lua, lua/promote.lua).
 */
import type { Redis } from 'ioredis';
import type { Checkpoint, Doc, GenerationalReadModel } from '../../ports/readModel';
import { isScalar } from '../plan';
import { staleCommit } from './commit';
import type { CollectionGeneration, GenerationKeyDeleter } from './generationKeys';
import { buildLeaseKey, cesu8, name, ord } from './keys';
import type { ReadModelKeys } from './keys';
import { PROMOTE_SCRIPT, run, STAGE_SCRIPT } from './scripts';

/** The collections in a generation, as GenerationKeyDeleter takes them. */
export const inGeneration = (collections: Iterable<string>, generation: number): CollectionGeneration[] =>
  [...collections].map((collection) => ({ collection: name(collection).toString('latin1'), generation }));

/**
 * Which generation each collection is served from: loaded once, reloaded after a switch (published by PROMOTE, or
 * made by this process) and after the subscriber reconnects. Keys are built once per collection and generation.
 */
export class LiveGenerations {
  private generations = new Map<string, number>();
  private loaded: Promise<void> | null = null;
  private readonly keyCache = new Map<string, { generation: number; collection: Buffer; docs: Buffer }>();
  private readonly switches: Buffer;
  private readonly onSwitch = (channel: Buffer) => {
    if (channel.equals(this.switches)) this.refresh().catch(() => undefined);
  };
  private readonly onReady = () => this.refresh().catch(() => undefined);

  constructor(
    private readonly redis: Redis,
    private readonly keys: ReadModelKeys,
    private readonly subscriber: Redis | undefined,
  ) {
    this.refresh().catch(() => undefined);
    this.switches = keys.meta('gen:switched');
    if (subscriber) {
      subscriber.on('messageBuffer', this.onSwitch);
      subscriber.on('ready', this.onReady);
      subscriber.subscribe(this.switches as unknown as string).catch(() => undefined);
    }
  }

  refresh(): Promise<void> {
    const load = this.redis.hgetall(this.keys.meta('gen:collections') as unknown as string).then((all) => {
      this.generations = new Map(
        Object.entries(all).map(([collection, generation]) => [collection, Number(generation)]),
      );
    });
    // A failed load is retried by the next read rather than remembered.
    this.loaded = load.catch((error) => {
      this.loaded = null;
      throw error;
    });
    return this.loaded;
  }

  /** The live generation of a collection as last loaded. */
  of(collection: string): number {
    return this.generations.get(collection) ?? 0;
  }

  /** The live generation's key prefix of a collection and its documents' key (C:d). */
  async keysOf(collection: string): Promise<{ collection: Buffer; docs: Buffer }> {
    await (this.loaded ?? this.refresh());
    const generation = this.of(collection);
    let keys = this.keyCache.get(collection);
    if (keys?.generation !== generation) {
      const key = this.keys.collection(collection, generation);
      keys = { generation, collection: key, docs: Buffer.concat([key, Buffer.from('d')]) };
      this.keyCache.set(collection, keys);
    }
    return keys;
  }

  /** Stops listening for switches (the subscriber stays connected: it is the caller's). */
  async close(): Promise<void> {
    const { subscriber } = this;
    if (!subscriber) return;
    subscriber.off('messageBuffer', this.onSwitch).off('ready', this.onReady);
    // Only on a live connection: a command queued on one that is down would wait for a reconnection that closing
    // the connection then cancels without answering it.
    if (subscriber.status === 'ready')
      await subscriber.unsubscribe(this.switches as unknown as string).catch(() => undefined);
  }
}

/** Build leases of the generations this process is building (see buildLeaseKey), renewed every third of their life. */
export class BuildLeases {
  private readonly building = new Map<number, NodeJS.Timeout>();

  constructor(
    private readonly redis: Redis,
    private readonly prefix: Buffer,
    readonly ms: number,
  ) {}

  keep(projection: string, generation: number): void {
    const { redis } = this;
    const key = buildLeaseKey(this.prefix, generation);
    const renew = () => {
      // XX: a lapsed lease is not taken back (a sweep may have un-staged the generation meanwhile).
      redis.set(key as unknown as string, cesu8(projection) as unknown as string, 'PX', this.ms, 'XX').then(
        (renewed) => {
          if (renewed === null) this.stop(generation);
        },
        () => {
          if (redis.status === 'end') this.stop(generation);
        },
      );
    };
    const timer = setInterval(renew, Math.max(50, Math.floor(this.ms / 3)));
    // A build under way does not keep the process alive on its own account.
    timer.unref();
    this.building.set(generation, timer);
  }

  stop(generation: number): void {
    clearInterval(this.building.get(generation));
    this.building.delete(generation);
  }

  stopAll(): void {
    for (const generation of [...this.building.keys()]) this.stop(generation);
  }

  async end(generation: number): Promise<void> {
    this.stop(generation);
    await this.redis.del(buildLeaseKey(this.prefix, generation) as unknown as string);
  }
}

interface GenerationsEngine {
  redis: Redis;
  reader: Redis;
  keys: ReadModelKeys;
  live: LiveGenerations;
  leases: BuildLeases;
  deleter: GenerationKeyDeleter;
  parse(json: string | null): Doc | null;
}

export function createGenerations({
  redis,
  reader,
  keys,
  live,
  leases,
  deleter,
  parse,
}: GenerationsEngine): GenerationalReadModel {
  const { prefix } = keys;
  return {
    async liveGeneration(projection) {
      return Number(
        (await redis.hget(keys.meta('gen:live') as unknown as string, cesu8(projection) as unknown as string)) ?? 0,
      );
    },

    async getManyIn(generation, collection, ids) {
      const wanted = ids.map((id) => (isScalar(id) ? ord(id) : null));
      const fields = wanted.filter((f): f is Buffer => f !== null);
      if (fields.length === 0) return ids.map(() => null);
      // On the reads' connection: the projections of a batch fetch their documents at once, and an auto-pipelined
      // reader sends those fetches together (commits are awaited before the next batch folds, so they are seen).
      const found = await reader.hmget(
        Buffer.concat([keys.collection(collection, generation), Buffer.from('d')]),
        ...fields,
      );
      let i = 0;
      return wanted.map((f) => (f === null ? null : parse(found[i++] ?? null)));
    },

    async stageGeneration(projection, collections) {
      // Staged with its build lease (buildLeaseKey), so a sweep never takes it for abandoned.
      const [staged, previous] = (await run(redis, STAGE_SCRIPT, [prefix, cesu8(projection), String(leases.ms)])) as [
        number,
        string | null,
      ];
      const generation = Number(staged);
      leases.keep(projection, generation);
      // An abandoned build (its builder died) is replaced: its keys are nobody's. The new generation has none.
      if (previous) {
        await leases.end(Number(previous));
        await deleter.delete(inGeneration(collections, Number(previous)));
      }
      return generation;
    },

    async stagedCheckpoint(projection, generation) {
      const [staged, raw] = await Promise.all([
        redis.hget(keys.meta('gen:staged') as unknown as string, cesu8(projection) as unknown as string),
        redis.hget(keys.meta('gen:staged-checkpoints') as unknown as string, cesu8(projection) as unknown as string),
      ]);
      if (staged !== String(generation) || raw === null) return null;
      const { position, version } = JSON.parse(raw) as Checkpoint;
      return { position, version };
    },

    async promote(projection, generation, collections) {
      let reply: unknown;
      try {
        reply = await run(redis, PROMOTE_SCRIPT, [
          prefix,
          cesu8(projection),
          String(generation),
          ...collections.map(cesu8),
        ]);
      } catch (error) {
        throw staleCommit(error) ?? error;
      }
      if (reply === 'behind') return 'behind';
      // Switched: a lease left behind would only lapse.
      await leases.end(generation).catch(() => undefined);
      await live.refresh();
      return { retired: Number(reply) };
    },

    async abandonGeneration(_projection, generation) {
      // Its keys are left for a sweep, which takes the generation for abandoned once its lease is gone.
      await leases.end(generation);
    },

    async dropGenerations(retired) {
      await live.refresh();
      for (const { collections, generation } of retired) {
        for (const collection of collections) {
          if (live.of(collection) === generation) throw new Error(`generation ${generation} of ${collection} is live`);
        }
      }
      // One walk of the keyspace for them all.
      await deleter.delete(retired.flatMap(({ collections, generation }) => inGeneration(collections, generation)));
      if (retired.length > 0)
        await redis.hdel(
          keys.meta('gen:retired') as unknown as string,
          ...retired.map(({ generation }) => String(generation)),
        );
    },
  };
}
