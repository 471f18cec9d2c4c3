/**
 * The Redis read model. Every key lives under `prefix`; a collection's keys under `<prefix>c:<collection>:`
 * (names escape ':' and '%', so no collection or field name can reach into another's keys):
 *
 *   C:d            hash  oid → document JSON                       (get / getMany are one HMGET)
 *   C:i, C:o       hash  oid → handle, handle → oid
 *   C:m            hash  handle → the stored index entry (msgpack: sort keys, set suffixes, text columns, partition
 *                         fields), to remove stale memberships on change
 *   C:seq          handle counter
 *   C:z:id         zset  ord(id)·handle                             (every document, in id order)
 *   C:z:<key>      zset  ord(value)·ord(id)·handle, per sort key    (walkable both ways, ties by id)
 *   C:k:<key>      hash  handle → ord(value)·ord(id)·handle (its member in C:z:<key>), to test ranges and sort
 *                         candidates
 *   C:s:<field>:<ord(value)>  set of handles, per set-field value
 *   C:x:<column>   hash  handle → lowercased text (an empty one is not stored)
 *   C:w:<column>:<token>      set of handles whose lowercased column holds the token (a posting set), for tokens of
 *                             at least MIN_TOKEN_BYTES bytes (no search reads a shorter token's)
 *   C:v:<column>              set of the column's tokens that have postings (its vocabulary)
 *   C:y:<column>:<trigram>    set of the vocabulary's tokens containing the byte trigram
 *   C:y:<column>:long         set of the vocabulary's tokens longer than 64 bytes (listed under no trigram)
 *   C:tx           string, present once COMMIT wrote the collection with this text index (see LAYOUT)
 *   C:q:<field>:<key>         zset ord(value)·ord(key)·ord(id)·handle, per partition field and sort key (and
 *                             ord(value)·ord(id)·handle under `id`): each value's documents in each order, so a
 *                             one-value filter on a partition field pages by rank (lua/partitionPage.lua)
 *   <prefix>checkpoints       hash name → {position, version, layout}; a checkpoint of another LAYOUT reads as
 *                             version -1, so the projection is rebuilt into a new generation with this layout
 *
 * Generations (rebuilds without downtime): the collections above are those of generation 0. A rebuild writes a
 * new generation G under `<prefix>g<G>:c:<collection>:` while readers keep using the live one, then PROMOTE
 * switches, in one script, the projection's live generation, its collections' generation and its checkpoint:
 *   <prefix>gen:live          hash projection → live generation (absent: 0)
 *   <prefix>gen:collections   hash collection → live generation, which readers cache; PROMOTE publishes the
 *                             switch on the channel <prefix>gen:switched and readers reload it
 *   <prefix>gen:staged        hash projection → the generation being built
 *   <prefix>gen:staged-checkpoints  hash projection → its checkpoint
 *   <prefix>gen:seq           generation counter (STAGE stages the next generation, past every recorded one)
 *   <prefix>gen:building:<G>  string (the projection), with an expiry its builder keeps renewing: the build lease of
 *                             staged generation G. A staged generation without one was abandoned (its builder died),
 *                             and sweepGenerations (sweep.ts) un-stages it and deletes its keys.
 *   <prefix>gen:retired       hash generation → when PROMOTE retired it (ms, Redis's clock), until it is dropped
 * and the retired generation is deleted after readers have had time to notice (see docs/operations.md).
 *
 *   <prefix>projector:fence   the newest projector lease's fencing token (src/adapters/redis/coordination.ts): a live
 *                             commit carrying an older token is refused inside COMMIT, so a projector that lost
 *                             its lease (paused, partitioned) cannot overwrite its successor's work.
 *
 * A handle is a small per-collection integer: set members stay short (and small sets stay intsets). ord() is
 * an order-preserving, prefix-free byte encoding: numbers as tag 1 + the sign-flipped IEEE double, strings as
 * tag 2 + CESU-8 (UTF-8 per UTF-16 code unit, so byte order is code-unit order) with 0x00/0x01 escaped + 0x00.
 * All sorted-set members have score 0 and are compared by bytes, so one ZRANGE BYLEX walks any key either way
 * with ties broken by id, and a range filter is a lex range.
 *
 * A query is one EVALSHA of QUERY. Filters compile to a token program the script evaluates in batches of
 * handles (SMISMEMBER, HMGET), plus, per node, a candidate estimate (SCARD, ZLEXCOUNT, trigram SCARDs), a
 * candidate list (SMEMBERS/SUNION/SINTER, a lex range, a trigram SINTER) and, for set-only shapes, an exact
 * count (SCARD, SINTERCARD, a union count). For a field order with an exact count the script walks the order
 * zset from the requested end, testing chunks of handles, until offset + limit matches were seen; so
 * `status = publish` ordered by date, limit 10, is an SCARD plus about log n + 10 / (share published) steps.
 * When the matches are few compared with that walk (or no exact count exists) it lists the smallest
 * candidate set, tests it and sorts it (or walks the order zset checking membership, if that is cheaper).
 * Text is indexed by tokens: a column's tokens are its maximal runs of ASCII letters and digits and non-ASCII
 * characters, once lowercased (every other ASCII character separates them). A term made of token characters only
 * occurs in a column exactly when it occurs in one of the column's tokens, so the documents containing it are the
 * union of the posting sets of the vocabulary tokens that contain it, and those are found by the trigrams of the
 * term in C:y (the vocabulary grows far slower than the documents). Such a term (of at least three bytes) is
 * answered by set lookups alone. Any other term narrows by its longest token piece of three bytes or more, if it
 * has one, and is checked on the stored lowercased text, as are terms under three bytes; relevance ranks likewise.
 *
 * A commit is one EVALSHA of COMMIT: it reads each document's previous entry from C:m, removes only the
 * memberships that changed, adds the new ones and moves the checkpoint, atomically. The client sends each text
 * column's distinct tokens with it, and the script gathers set memberships over the whole commit and sends
 * one variadic SADD / SREM per set at the end (a batch's documents share most posting sets), then adds tokens new
 * to a vocabulary (with their trigrams) and drops tokens left without postings. A commit with others alongside sends several
 * projections' commits (a batch of the log, Commit.alongside) as sections of one COMMIT, all checked before any is
 * written.
 * Everything that can be invalid is checked before the script is sent (a Lua error part-way would not roll back).
 * A rebuild's bulk commit into a staged generation (Commit.bulk, see bulkCommit.ts) is not atomic: documents new to the
 * generation are written by plain variadic commands (one HSET, ZADD or SADD per key for a thousand documents, encoded
 * by this process: resp.ts) after RESERVE checked the generation and reserved their handles, with the same keys and
 * values COMMIT would write; documents it already held go through COMMIT; their tokens join the vocabulary by
 * BULK_VOCABULARY; the checkpoint moves last. Nobody reads a staged generation until PROMOTE.
 *
 * Scripts touch keys they compute, so this adapter needs a single Redis, not a cluster.
 *
 * Memory: posting sets of common tokens hold most documents; sets of integers stay compact intsets only up to
 * set-max-intset-entries (default 512), so raising it saves memory on servers that hold large sites.
 *
 * The parts: the scripts COMMIT, QUERY, RESERVE, BULK_VOCABULARY, STAGE and PROMOTE are lua/commit.lua, lua/query.lua
 * and so on, loaded and run by scripts.ts; keys.ts holds the key layout's encodings (ord, names, CESU-8), text.ts the
 * tokens, query.ts the compilation of plans to QUERY's arguments, commit.ts COMMIT's arguments, bulkCommit.ts the bulk
 * commit, generations.ts the live generations and build leases; this module puts them together behind the port.
 */
import type { Redis } from 'ioredis';
import type { Checkpoint, Doc, DocId, QueryPlan, QueryResult, ReadModel } from '../../ports/readModel';
import { checkPlan, isScalar } from '../plan';
import { prepareCommit } from '../commit';
import { AdmissionWindow } from '../../core/admissionWindow';
import { bulkCommit, distinctWrites } from './bulkCommit';
import { checkpointJson, checkTokens, commitArgs, LAYOUT, runCommit } from './commit';
import type { CommitSection } from './commit';
import { GenerationKeyDeleter } from './generationKeys';
import { BuildLeases, createGenerations, inGeneration, LiveGenerations } from './generations';
import { cesu8, globEscape, ord, ReadModelKeys } from './keys';
import { compileFilters, compileOrder, partitionHint } from './query';
import { QUERY_SCRIPT, run } from './scripts';
import type { Token } from './scripts';
import { deepFreeze } from '../../core/deepFreeze';
import { CacheBudget } from '../../caches/budget';
import type { CacheSize } from '../../caches/budget';

export interface RedisReadModelOptions {
  redis: Redis;
  /** Every key starts with it, so several sites (and test runs) can share one server. */
  prefix: string;
  /**
   * A connection for subscriptions (the adapter subscribes to generation switches on it). Without one, this process
   * sees only its own switches: enough for one process, not for several sharing the read model.
   */
  subscriber?: Redis;
  /**
   * A connection for the reads of the API (get, getMany, query); `redis` without one. An auto-pipelined one
   * (ioredis `enableAutoPipelining`) lets the reads of concurrent requests share socket writes; commits stay
   * on `redis`, since their argument lists are too long for ioredis's auto-pipelining.
   */
  reader?: Redis;
  /**
   * Lifetime of a staged generation's build lease (ms; renewed every third of it while this process builds it). A
   * sweep (sweep.ts) takes a staged generation whose lease lapsed for abandoned. Default 30 s.
   */
  buildLeaseMs?: number;
  /**
   * Parsed documents kept by recent use (default: the default cache budget's `parsedDocuments` for Redis,
   * src/caches/budget.ts); 0 keeps none. See `parse` below.
   */
  parsedDocsKept?: number;
}

/** The Redis read model, and what its parse cache holds. */
export interface RedisReadModel extends ReadModel {
  parsedDocumentsHeld(): CacheSize;
}

export function createRedisReadModel(options: RedisReadModelOptions): RedisReadModel {
  const { redis } = options;
  const keys = new ReadModelKeys(options.prefix);
  const { prefix } = keys;
  const live = new LiveGenerations(redis, keys, options.subscriber);
  const collectionKey = async (collection: string) => (await live.keysOf(collection)).collection;
  const docsKey = async (collection: string) => (await live.keysOf(collection)).docs;

  // Deleting a generation's keys walks the keyspace; deletions waiting at once share a walk (generationKeys.ts).
  const deleter = new GenerationKeyDeleter(redis, prefix, globEscape(prefix));
  const reader = options.reader ?? redis;
  const leases = new BuildLeases(redis, prefix, options.buildLeaseMs ?? 30_000);

  // The same stored JSON gives back the same frozen document (as the memory read model hands out its frozen
  // documents), so what is derived from a document can be cached by its identity (the presented items), and
  // hot documents are not parsed again on every read. Bounded, least recently used dropped first.
  // Kept under a fingerprint of the JSON (its length, head and tail) and checked against the whole JSON: hashing a
  // ~3 KB reply string as a Map key cost more than the rest of a hit; comparing two strings is a memcmp. Two JSONs
  // with one fingerprint (versions of a document of the same length) only replace each other.
  // Once full, a document new to it is kept only when read again within the admission window: at 100,000 posts read
  // at random, keeping every one pushed another out, and each one pushed out (its JSON and its objects) was garbage
  // in the old generation. A document read once is parsed, used and left to the young generation.
  const parsedDocsKept = options.parsedDocsKept ?? CacheBudget.defaults('redis').entries('parsedDocuments');
  const parsedDocs = new Map<string, { json: string; doc: Doc }>();
  const parsedOnce = new AdmissionWindow(2 * parsedDocsKept);
  const parse = (json: string | null): Doc | null => {
    if (json === null) return null;
    const key = json.length < 160 ? json : `${json.length}\u0000${json.slice(0, 96)}\u0000${json.slice(-48)}`;
    let kept = parsedDocs.get(key);
    if (kept !== undefined) parsedDocs.delete(key);
    if (kept === undefined || kept.json !== json) {
      const doc = deepFreeze(JSON.parse(json) as Doc);
      if (kept === undefined && parsedDocs.size >= parsedDocsKept) {
        if (parsedDocsKept === 0 || !parsedOnce.admits(key)) return doc;
        parsedDocs.delete(parsedDocs.keys().next().value!);
      }
      kept = { json, doc };
    }
    parsedDocs.set(key, kept);
    return kept.doc;
  };
  const generations = createGenerations({ redis, reader, keys, live, leases, deleter, parse });
  const { liveGeneration } = generations;

  return {
    parsedDocumentsHeld: () => ({ entries: parsedDocs.size }),

    async get(collection, id) {
      if (!isScalar(id)) return null;
      return parse(await reader.hget(await docsKey(collection), ord(id)));
    },

    async getMany(collection, ids: readonly DocId[]) {
      const wanted = ids.map((id) => (isScalar(id) ? ord(id) : null));
      const fields = wanted.filter((f): f is Buffer => f !== null);
      if (fields.length === 0) return ids.map(() => null);
      const found = await reader.hmget(await docsKey(collection), ...fields);
      let i = 0;
      return wanted.map((f) => (f === null ? null : parse(found[i++] ?? null)));
    },

    async query(collection, plan: QueryPlan): Promise<QueryResult> {
      checkPlan(plan);
      const filter = compileFilters(plan);
      const args: Token[] = [
        await collectionKey(collection),
        String(plan.offset),
        String(plan.limit ?? -1),
        ...filter,
        ...compileOrder(plan.order),
        ...partitionHint(plan),
      ];
      const reply = (await run(reader, QUERY_SCRIPT, args)) as [number, ...string[]];
      const [total, ...docs] = reply;
      return { items: docs.map((d) => parse(d)!), total };
    },

    async commit(commit) {
      const prepared = prepareCommit(commit, false);
      const { generation, fence, expectedPosition } = commit;
      checkTokens(commit);
      if (commit.alongside !== undefined && commit.alongside.length > 0) {
        if (commit.bulk === true) throw new RangeError('a bulk commit goes alone');
        const sections: CommitSection[] = [
          {
            prepared,
            writes: prepared.writes,
            checkpoint: checkpointJson(prepared),
            generation,
            fence,
            expectedPosition,
          },
        ];
        for (const other of commit.alongside) {
          if (other.bulk === true || (other.alongside?.length ?? 0) > 0)
            throw new RangeError('commits alongside go without bulk or commits of their own');
          const own = prepareCommit(other, false);
          checkTokens(other);
          sections.push({
            prepared: own,
            writes: own.writes,
            checkpoint: checkpointJson(own),
            generation: other.generation,
            fence: other.fence,
            expectedPosition: other.expectedPosition,
          });
        }
        await runCommit(redis, commitArgs(prefix, sections, false));
        return;
      }
      if (commit.bulk === true && expectedPosition !== undefined)
        throw new RangeError('a bulk commit expects no checkpoint position');
      if (
        commit.bulk === true &&
        generation !== undefined &&
        prepared.writes.length > 0 &&
        distinctWrites(prepared) &&
        (await liveGeneration(prepared.name)) !== generation
      ) {
        await bulkCommit({ redis, keys, deleter }, prepared, generation);
        return;
      }
      await runCommit(
        redis,
        commitArgs(
          prefix,
          [
            {
              prepared,
              writes: prepared.writes,
              checkpoint: checkpointJson(prepared),
              generation,
              fence,
              expectedPosition,
            },
          ],
          false,
        ),
      );
    },

    commitsAlongside: true,

    async checkpoint(checkpointName): Promise<Checkpoint | null> {
      const raw = await redis.hget(keys.checkpoints, cesu8(checkpointName));
      if (raw === null) return null;
      const { position, version, layout } = JSON.parse(raw) as Checkpoint & { layout?: number };
      // Documents indexed in an older key layout read as older than any projection version: they are rebuilt.
      return { position, version: layout === LAYOUT ? version : -1 };
    },

    async reset(checkpointName, collections) {
      // The checkpoint goes first: a reset cut short then reads as "no checkpoint", which means rebuild.
      await redis.hdel(keys.checkpoints, cesu8(checkpointName));
      const generation = await liveGeneration(checkpointName);
      await deleter.delete(inGeneration(collections, generation));
    },

    generations,

    // The clients belong to the caller (they may serve other adapters), so closing leaves them connected.
    async close() {
      leases.stopAll();
      await live.close();
    },
  };
}
