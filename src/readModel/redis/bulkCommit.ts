/**
 * A rebuild's bulk commit into a staged generation (Commit.bulk): documents new to the generation written by plain
 * variadic commands this process encodes (resp.ts), the others through COMMIT, the checkpoint last.
 */
import type { Redis } from 'ioredis';
import { StaleCommitError } from '../../ports/readModel';
import type { PreparedCommit, PreparedWrite } from '../commit';
import { checkpointJson, commitArgs, runCommit, staleCommit } from './commit';
import { inGeneration } from './generations';
import type { GenerationKeyDeleter } from './generationKeys';
import { cesu8, COLON, KeyParts, ord, SURROGATE } from './keys';
import type { ReadModelKeys } from './keys';
import { packEntry, BufferPool, CommandBatch } from './resp';
import { ADD_ONE_SCRIPT, BULK_VOCABULARY_SCRIPT, RESERVE_SCRIPT, run } from './scripts';
import type { Token } from './scripts';
import { gatherTokens } from './text';
import type { ChunkTokens } from './text';

/** What a bulk commit writes with: the commands' connection, the read model's keys, and its generation deleter. */
export interface BulkEngine {
  redis: Redis;
  keys: ReadModelKeys;
  deleter: GenerationKeyDeleter;
}

/**
 * Documents per COMMIT of a bulk commit's documents the generation already held, per pipeline of its new documents
 * (see bulkCommit), and tokens per BULK_VOCABULARY.
 */
const BULK_STEP = 500;
const BULK_CHUNK = 1_000;
const BULK_MEMBERS = 50_000;

function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [item]);
    else group.push(item);
  }
  return groups;
}

/** Whether each document is written once: a bulk commit adds a new document's memberships after all its steps. */
export function distinctWrites(prepared: PreparedCommit): boolean {
  const seen = new Set<string>();
  for (const write of prepared.writes) {
    const id = `${write.collection}\u0000${typeof write.id}\u0000${String(write.id)}`;
    if (seen.has(id)) return false;
    seen.add(id);
  }
  return true;
}

/**
 * A rebuild's bulk commit into a staged generation (Commit.bulk), which nobody reads until PROMOTE, so it need not
 * be atomic. Documents the generation already holds go through COMMIT as in any commit (in steps of BULK_STEP):
 * their old entries must be unindexed. Documents new to it (all of them in a first flush) are written by
 * writeNewDocuments with plain variadic commands, the same keys and values COMMIT would write. The checkpoint
 * moves last. If the generation was replaced meanwhile (another rebuild staged one), what this commit wrote into
 * it is deleted, since nobody else will: a generation number is never reused.
 */
export async function bulkCommit(engine: BulkEngine, prepared: PreparedCommit, generation: number): Promise<void> {
  const { redis, keys, deleter } = engine;
  const held = await heldWrites(engine, prepared.writes, generation);
  const fresh = prepared.writes.filter((write) => write.json !== undefined && !held.has(write));
  const known = prepared.writes.filter((write) => held.has(write));
  try {
    if (fresh.length > 0) await writeNewDocuments(engine, prepared.name, fresh, generation);
    for (let from = 0; from < known.length; from += BULK_STEP) {
      await runCommit(
        redis,
        commitArgs(
          keys.prefix,
          [{ prepared, writes: known.slice(from, from + BULK_STEP), checkpoint: '', generation }],
          false,
        ),
      );
    }
    // Last, the checkpoint (and the check that the generation is still staged).
    await runCommit(
      redis,
      commitArgs(
        keys.prefix,
        [{ prepared: { ...prepared, writes: [] }, writes: [], checkpoint: checkpointJson(prepared), generation }],
        false,
      ),
    );
  } catch (error) {
    if (error instanceof StaleCommitError && error.reason === 'generation') {
      await deleter
        .delete(inGeneration(new Set(prepared.writes.map((write) => write.collection)), generation))
        .catch(() => undefined);
    }
    throw error;
  }
}

/** The writes whose document the generation already holds (one HMGET of C:i per collection and 10,000 ids). */
async function heldWrites(
  { redis, keys }: BulkEngine,
  writes: readonly PreparedWrite[],
  generation: number,
): Promise<Set<PreparedWrite>> {
  const held = new Set<PreparedWrite>();
  for (const [collection, own] of groupBy(writes, (write) => write.collection)) {
    const key = Buffer.concat([keys.collection(collection, generation), Buffer.from('i')]);
    if ((await redis.hlen(key as unknown as string)) === 0) continue;
    for (let from = 0; from < own.length; from += 10_000) {
      const part = own.slice(from, from + 10_000);
      const handles = await redis.hmget(
        key as unknown as string,
        ...(part.map((write) => ord(write.id)) as unknown as string[]),
      );
      part.forEach((write, i) => {
        if (handles[i] !== null) held.add(write);
      });
    }
  }
  return held;
}

/**
 * Writes documents new to a staged generation, as COMMIT would write them (same keys, members and values), without a
 * script per document: handles are reserved per collection by RESERVE (which also checks that the generation is
 * still staged), then every BULK_CHUNK documents go out as one pipeline of variadic commands encoded here
 * (CommandBatch): one HSET per hash, one ZADD per sorted set, one SADD per set and posting set, while the next
 * chunk is prepared. Tokens that gained postings join their column's vocabulary at the end (BULK_VOCABULARY).
 */
async function writeNewDocuments(
  { redis, keys }: BulkEngine,
  projection: string,
  writes: readonly PreparedWrite[],
  generation: number,
): Promise<void> {
  const byCollection = groupBy(writes, (write) => write.collection);
  const reserve: Token[] = [keys.prefix, cesu8(projection), String(generation)];
  for (const [collection, own] of byCollection)
    reserve.push(keys.collection(collection, generation), String(own.length));
  let last: number[];
  try {
    last = (await run(redis, RESERVE_SCRIPT, reserve)) as number[];
  } catch (error) {
    throw staleCommit(error) ?? error;
  }
  const parts = new KeyParts();
  // The chunks' command buffers, used again once answered (a few chunks are in flight at once).
  const pool = new BufferPool();
  const inFlight: Promise<void>[] = [];
  const sent = (batches: CommandBatch[]) => {
    const sending = Promise.all(batches.map((batch) => batch.send(redis, ADD_ONE_SCRIPT))).then(() => undefined);
    sending.catch(() => undefined);
    inFlight.push(sending);
  };
  const vocabulary: Buffer[] = [];
  let c = 0;
  for (const [collection, own] of byCollection) {
    const base = keys.collection(collection, generation);
    const key = (...rest: (Buffer | string)[]) =>
      Buffer.concat([base, ...rest.map((r) => (typeof r === 'string' ? Buffer.from(r) : r))]);
    const [docs, ids, owners, entries, byId] = [key('d'), key('i'), key('o'), key('m'), key('z:id')];
    // Keys by kind and the KeyParts buffer they are made of (one buffer per distinct name or suffix).
    const made = new Map<string, Map<Buffer, Buffer>>();
    const keyOf = (kind: string, part: Buffer) => {
      let byPart = made.get(kind);
      if (byPart === undefined) made.set(kind, (byPart = new Map()));
      let k = byPart.get(part);
      if (k === undefined) byPart.set(part, (k = key(kind, part)));
      return k;
    };
    // Per text column: its posting prefix and every token that gained postings in this commit.
    const columns = new Map<Buffer, { postings: Buffer; tokens: Set<string> }>();
    let handle = last[c++]! - own.length;
    for (let from = 0; from < own.length; from += BULK_CHUNK) {
      const batch = new CommandBatch(pool);
      const chunk = own.slice(from, from + BULK_CHUNK);
      // Sized for the chunk at once: the documents' JSON, and about 30 bytes per document in the other commands.
      let jsonBytes = 0;
      for (const write of chunk) jsonBytes += write.json!.length;
      const perDocument = 32 * chunk.length + 64;
      const docsCommand = batch.command(docs, 'HSET', docs, jsonBytes + 16 * chunk.length + 64);
      const idsCommand = batch.command(ids, 'HSET', ids, perDocument);
      const ownersCommand = batch.command(owners, 'HSET', owners, perDocument);
      const byIdCommand = batch.command(byId, 'ZADD', byId, perDocument);
      const postings = new Map<Buffer, ChunkTokens>();
      const entryList: [number, Buffer][] = [];
      for (const write of chunk) {
        const h = ++handle;
        const oid = ord(write.id);
        const { sort, sets, text } = write.entry;
        docsCommand.piece(oid).piece(write.json!);
        idsCommand.piece(oid).integer(h);
        ownersCommand.integer(h).piece(oid);
        byIdCommand.piece('0').piecesThen([oid], h);
        // The entry's maps visited with forEach: no iterator or [name, value] pair per field.
        const s: Buffer[] = [];
        const sortNames: string[] = [];
        const sortOrds: Buffer[] = [];
        sort.forEach((value, field) => {
          const f = parts.name(field);
          const k = ord(value);
          s.push(f, k);
          sortNames.push(field);
          sortOrds.push(k);
          const sorted = keyOf('z:', f);
          const members = keyOf('k:', f);
          const member = [k, oid];
          batch
            .command(sorted, 'ZADD', sorted, perDocument * 2)
            .piece('0')
            .piecesThen(member, h);
          batch
            .command(members, 'HSET', members, perDocument * 2)
            .integer(h)
            .piecesThen(member, h);
        });
        const t: Buffer[] = [];
        sets.forEach((values, field) => {
          for (const v of values) {
            const suffix = parts.setSuffix(field, v);
            t.push(suffix);
            const set = keyOf('s:', suffix);
            batch.command(set, 'SADD', set).integer(h);
          }
        });
        const x: Buffer[] = [];
        text.forEach((value, column) => {
          const lowered = value.toLowerCase();
          const col = parts.name(column);
          x.push(col);
          if (lowered === '') return;
          const texts = keyOf('x:', col);
          // Sized for the chunk from its first text (grown by doubling otherwise, a copy each time).
          batch
            .command(texts, 'HSET', texts, Math.min((lowered.length + 16) * chunk.length, 1 << 22) + perDocument)
            .integer(h)
            .piece(SURROGATE.test(lowered) ? cesu8(lowered) : lowered);
          let byToken = postings.get(col);
          if (byToken === undefined) postings.set(col, (byToken = new Map()));
          gatherTokens(lowered, h, byToken);
        });
        // Partition orders (see partitionOrders in lua/commit.lua): per value of a partition field, in C:q:<field>:id and in
        // C:q:<field>:<key> per sort key; the entry only names the fields.
        const partitions: Buffer[] = [];
        for (const field of write.entry.partitions) {
          partitions.push(parts.name(field));
          for (const value of sets.get(field) ?? []) {
            const pv = ord(value);
            const byId = keyOf('q:', parts.partitionSuffix(field, 'id'));
            batch
              .command(byId, 'ZADD', byId, perDocument * 2)
              .piece('0')
              .piecesThen([pv, oid], h);
            for (let i = 0; i < sortNames.length; i++) {
              const partition = keyOf('q:', parts.partitionSuffix(field, sortNames[i]!));
              batch
                .command(partition, 'ZADD', partition, perDocument * 2)
                .piece('0')
                .piecesThen([pv, sortOrds[i]!, oid], h);
            }
          }
        }
        // The entry COMMIT reads to unindex the document later (the table cmsgpack would pack).
        entryList.push([
          h,
          packEntry([
            ['P', partitions],
            ['t', t],
            ['s', s],
            ['x', x],
          ]),
        ]);
      }
      const entriesCommand = batch.command(entries, 'HSET', entries, perDocument * 8);
      for (const [h, entry] of entryList) entriesCommand.integer(h).piece(entry);
      // Posting sets are named by token, so each column's go in a batch of their own.
      const batches = [batch];
      for (const [col, byToken] of postings) {
        let column = columns.get(col);
        if (column === undefined) columns.set(col, (column = { postings: key('w:', col, COLON), tokens: new Set() }));
        const own = new CommandBatch(pool);
        batches.push(own);
        for (const { token, handles } of [...byToken.values()].flat()) {
          column.tokens.add(token);
          const posting = own.command(
            token,
            'SADD',
            [column.postings, SURROGATE.test(token) ? cesu8(token) : token],
            8 * handles.length + 64,
          );
          for (const h of handles) posting.integer(h);
        }
      }
      sent(batches);
      // Redis writes one chunk while this process prepares the next.
      while (inFlight.length > 2) await inFlight.shift();
    }
    for (const [col, { postings, tokens }] of columns) {
      const list = [...tokens];
      for (let from = 0; from < list.length; from += BULK_MEMBERS) {
        vocabulary.push(
          postings,
          key('v:', col),
          key('y:', col, COLON),
          cesu8(list.slice(from, from + BULK_MEMBERS).join(' ')),
        );
      }
    }
  }
  await Promise.all(inFlight);
  // Then the tokens that gained postings join their column's vocabulary (after the postings, as in COMMIT).
  for (let i = 0; i < vocabulary.length; i += 4) await run(redis, BULK_VOCABULARY_SCRIPT, vocabulary.slice(i, i + 4));
}
