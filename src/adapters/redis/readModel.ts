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
 *                             one-value filter on a partition field pages by rank (LUA_PARTITION_PAGE)
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
 *   <prefix>projector:fence   the newest projector lease's fencing token (src/adapters/redis/lease.ts): a live
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
 * A rebuild's bulk commit into a staged generation (Commit.bulk, see bulkCommit) is not atomic: documents new to the
 * generation are written by plain variadic commands (one HSET, ZADD or SADD per key for a thousand documents, encoded
 * by this process: resp.ts) after RESERVE checked the generation and reserved their handles, with the same keys and
 * values COMMIT would write; documents it already held go through COMMIT; their tokens join the vocabulary by
 * BULK_VOCABULARY; the checkpoint moves last. Nobody reads a staged generation until PROMOTE.
 *
 * Scripts touch keys they compute, so this adapter needs a single Redis, not a cluster.
 *
 * Memory: posting sets of common tokens hold most documents; sets of integers stay compact intsets only up to
 * set-max-intset-entries (default 512), so raising it saves memory on servers that hold large sites.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { StaleCommitError } from '../../ports/readModel';
import type { Checkpoint, Commit, Doc, DocId, Filter, Order, QueryPlan, QueryResult, ReadModel, Scalar } from '../../ports/readModel';
import { checkPlan, distinctValues, isScalar, partitionShape, rangeBounds, searchTerms } from '../../readModel/plan';
import { prepareCommit } from '../../readModel/commit';
import type { PreparedCommit, PreparedWrite } from '../../readModel/commit';
import { ADD_ONE, BufferPool, CommandBatch, packEntry } from './resp';
import { GenerationKeyDeleter } from './generationKeys';
import type { CollectionGeneration } from './generationKeys';
import { AdmissionWindow } from '../../core/admissionWindow';

const SURROGATE = /[\uD800-\uDFFF]/;

/** CESU-8: UTF-8 applied to each UTF-16 code unit, so byte order is code-unit order and lone surrogates survive. */
export function cesu8(s: string): Buffer {
  if (!SURROGATE.test(s)) return Buffer.from(s, 'utf8');
  const bytes: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const u = s.charCodeAt(i);
    if (u < 0x80) bytes.push(u);
    else if (u < 0x800) bytes.push(0xc0 | (u >> 6), 0x80 | (u & 0x3f));
    else bytes.push(0xe0 | (u >> 12), 0x80 | ((u >> 6) & 0x3f), 0x80 | (u & 0x3f));
  }
  return Buffer.from(bytes);
}

/** Order-preserving, prefix-free encoding of a scalar (see the header). */
function ord(value: Scalar): Buffer {
  if (typeof value === 'number') {
    // Every byte is written (allocUnsafe takes small buffers from a shared pool: a rebuild makes millions).
    const b = Buffer.allocUnsafe(9);
    b[0] = 1;
    b.writeDoubleBE(value === 0 ? 0 : value, 1);
    if (b[1]! & 0x80) for (let i = 1; i < 9; i++) b[i] = ~b[i]! & 0xff;
    else b[1] = b[1]! | 0x80;
    return b;
  }
  const raw = cesu8(value);
  let low = 0;
  for (const x of raw) if (x < 2) low++;
  const out = Buffer.allocUnsafe(raw.length + low + 2);
  out[0] = 2;
  let j = 1;
  for (const x of raw) {
    if (x < 2) {
      out[j++] = 1;
      out[j++] = x + 1;
    } else out[j++] = x;
  }
  out[j] = 0;
  return out;
}

/** A name inside a key: ':' and '%' escaped, so names cannot run into each other. */
function name(s: string): Buffer {
  return cesu8(s.replace(/[%:]/g, (c) => (c === '%' ? '%25' : '%3A')));
}

const COLON = Buffer.from(':');

function setSuffix(field: string, value: Scalar): Buffer {
  return Buffer.concat([name(field), COLON, ord(value)]);
}

/** The partition order zset of a partition field and a sort key (or `id`): `C:q:<field>:<key>`. */
function partitionSuffix(field: string, key: string): Buffer {
  return Buffer.concat([name(field), COLON, key === 'id' ? Buffer.from('id') : name(key)]);
}

/**
 * The key parts a commit's arguments repeat (field and column names, set suffixes, partition zset suffixes), each
 * encoded once per COMMIT call: a bulk step of 500 documents names the same fields 500 times.
 */
class KeyParts {
  private readonly names = new Map<string, Buffer>();
  /** field → value → suffix (a Map tells 1 from '1', as ord does; ord writes -0 as 0, as a Map key it is 0). */
  private readonly suffixes = new Map<string, Map<Scalar, Buffer>>();
  private readonly partitions = new Map<string, Map<string, Buffer>>();

  name(s: string): Buffer {
    let b = this.names.get(s);
    if (b === undefined) this.names.set(s, (b = name(s)));
    return b;
  }

  setSuffix(field: string, value: Scalar): Buffer {
    let byValue = this.suffixes.get(field);
    if (byValue === undefined) this.suffixes.set(field, (byValue = new Map()));
    let b = byValue.get(value);
    if (b === undefined) byValue.set(value, (b = setSuffix(field, value)));
    return b;
  }

  partitionSuffix(field: string, key: string): Buffer {
    let byKey = this.partitions.get(field);
    if (byKey === undefined) this.partitions.set(field, (byKey = new Map()));
    let b = byKey.get(key);
    if (b === undefined) byKey.set(key, (b = partitionSuffix(field, key)));
    return b;
  }
}

/** Whether each document is written once: a bulk commit adds a new document's memberships after all its steps. */
function distinctWrites(prepared: PreparedCommit): boolean {
  const seen = new Set<string>();
  for (const write of prepared.writes) {
    const id = `${write.collection}\u0000${typeof write.id}\u0000${String(write.id)}`;
    if (seen.has(id)) return false;
    seen.add(id);
  }
  return true;
}

/**
 * Vocabulary tokens longer than this many bytes are listed once, in C:y:<column>:long, instead of under each of
 * their trigrams (each listing holds the whole token, so the trigram sets of one long token grow with its square).
 */
const LONG_TOKEN_BYTES = 64;
/** The suffix of that set's key: four bytes, so never a trigram's. */
const LONG_TOKENS = 'long';

/** Distinct byte trigrams of a term, at most `max`, spread over the term. */
function trigrams(term: Buffer, max = 8): Buffer[] {
  const all = new Map<string, Buffer>();
  for (let i = 0; i + 3 <= term.length; i++) {
    const tri = term.subarray(i, i + 3);
    all.set(tri.toString('latin1'), tri);
  }
  const list = [...all.values()];
  if (list.length <= max) return list;
  return Array.from({ length: max }, (_, i) => list[Math.floor((i * (list.length - 1)) / (max - 1))]!);
}

/**
 * The text index's tokens: maximal runs of ASCII letters and digits and non-ASCII characters in the lowercased text;
 * every other ASCII character separates them. In CESU-8 a token is a maximal run of the bytes 0-9, A-Z, a-z and
 * 0x80-0xFF (an ASCII byte is always a whole character), which is how the scripts cut stored text (LUA_TOKEN).
 * A term made of token characters only occurs in a text exactly when it occurs in one of the text's tokens.
 */
const TOKEN = /[0-9A-Za-z\u0080-\uffff]+/g;

/** Token characters (TOKEN) by UTF-16 code unit. */
const isTokenUnit = (c: number) => (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || c >= 0x80;

/**
 * Tokens shorter than this many bytes (CESU-8) have no posting set and are not in the vocabulary: a search finds
 * posting sets only through the trigrams of a probe of at least this many bytes (needle), which no shorter token can
 * contain, so theirs were never read (a term without such a probe is checked on the stored text). Per post they were
 * about a third of the posting memberships ("a", "of", "p", "wp", digits).
 */
const MIN_TOKEN_BYTES = 3;

/** Whether the token of `length` code units at `start` has at least MIN_TOKEN_BYTES bytes in CESU-8. */
function isIndexedToken(s: string, start: number, length: number): boolean {
  if (length >= MIN_TOKEN_BYTES) return true;
  let bytes = 0;
  for (let i = start; i < start + length; i++) {
    const c = s.charCodeAt(i);
    bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
  }
  return bytes >= MIN_TOKEN_BYTES;
}

/** A chunk's tokens of one column, by a hash of their code units: each with the handles of the documents holding it. */
type ChunkTokens = Map<number, { token: string; handles: number[] }[]>;

/**
 * Adds handle `h` to the postings of every token of `lowered` (cut as TOKEN cuts it), without a string per
 * occurrence: a token is looked up by a hash of its code units and compared in place; only one new to the chunk is
 * sliced out. (Matching TOKEN and looking each occurrence up by string was half the client's time in a rebuild.)
 */
function gatherTokens(lowered: string, h: number, into: ChunkTokens): void {
  const n = lowered.length;
  let i = 0;
  while (i < n) {
    let c = lowered.charCodeAt(i);
    if (!isTokenUnit(c)) {
      i++;
      continue;
    }
    const start = i;
    let hash = 0x811c9dc5;
    do {
      hash = Math.imul(hash ^ c, 0x01000193);
      i++;
    } while (i < n && isTokenUnit((c = lowered.charCodeAt(i))));
    const length = i - start;
    if (!isIndexedToken(lowered, start, length)) continue;
    // 30 bits: a small integer as a Map key.
    const key = (hash ^ length) & 0x3fffffff;
    let bucket = into.get(key);
    let found: { token: string; handles: number[] } | undefined;
    if (bucket === undefined) into.set(key, (bucket = []));
    else for (const entry of bucket) if (entry.token.length === length && lowered.startsWith(entry.token, start)) found = entry;
    if (found === undefined) bucket.push({ token: lowered.slice(start, i), handles: [h] });
    else if (found.handles[found.handles.length - 1] !== h) found.handles.push(h);
  }
}

/** A lowercased column's distinct indexed tokens (MIN_TOKEN_BYTES), for COMMIT. */
function distinctTokens(lowered: string): string[] {
  return [...new Set(lowered.match(TOKEN))].filter((token) => isIndexedToken(token, 0, token.length));
}

/**
 * A search term as the scripts take it (a "needle"): the lowercased term; its probe, the longest of its token
 * pieces if that has at least three bytes ('' otherwise), whose trigrams find the vocabulary tokens containing it;
 * and whether the probe is the whole term, in which case the documents whose column holds such a token are
 * exactly those whose column contains the term. Otherwise the probe only narrows and the stored text decides.
 */
function needle(lowered: string): Token[] {
  const term = cesu8(lowered);
  let probe: Buffer = Buffer.alloc(0);
  const pieces = lowered.match(TOKEN) ?? [];
  for (const piece of pieces) {
    const bytes = cesu8(piece);
    if (bytes.length > probe.length) probe = bytes;
  }
  if (probe.length < MIN_TOKEN_BYTES) return [term, '', '0', '0'];
  const exact = pieces.length === 1 && pieces[0] === lowered;
  const tris = trigrams(probe);
  return [term, probe, exact ? '1' : '0', String(tris.length), ...tris];
}

export function globEscape(key: Buffer): Buffer {
  const out: number[] = [];
  for (const x of key) {
    if (x === 0x2a || x === 0x3f || x === 0x5b || x === 0x5d || x === 0x5c) out.push(0x5c);
    out.push(x);
  }
  return Buffer.from(out);
}

type Token = Buffer | string;

interface Compiled {
  /** 'T' and 'F' are the constant nodes, simplified away where they can be. */
  kind: string;
  cost: number;
  tokens: Token[];
  /** An 'and' node's children, so a conjunction inside a conjunction is flattened into one. */
  kids?: Compiled[];
}

const TRUE: Compiled = { kind: 'T', cost: 0, tokens: ['T'] };
const FALSE: Compiled = { kind: 'F', cost: 0, tokens: ['F'] };

function node(kind: string, cost: number, tokens: Token[]): Compiled {
  return { kind, cost, tokens: [kind, ...tokens] };
}

function compileIds(kind: 'idin' | 'idnot', values: Scalar[]): Compiled {
  return node(kind, 0, [String(values.length), ...values.map(ord)]);
}

function compileSets(kind: 'any' | 'all' | 'none', field: string, values: Scalar[]): Compiled {
  return node(kind, 1, [String(values.length), ...values.map((v) => setSuffix(field, v))]);
}

function compileGroup(kind: 'and' | 'or', children: Compiled[]): Compiled {
  const [unit, zero] = kind === 'and' ? [TRUE, FALSE] : [FALSE, TRUE];
  // and(a, and(b, c)) is and(a, b, c): its set filters then intersect in one SINTER (gen) or SINTERCARD (fastCount).
  const flat = kind === 'and' ? children.flatMap((c) => c.kids ?? [c]) : children;
  const live = flat.filter((c) => c !== unit);
  if (live.includes(zero)) return zero;
  if (live.length === 0) return unit;
  if (live.length === 1) return live[0]!;
  live.sort((a, b) => a.cost - b.cost);
  const group = node(
    kind,
    live.reduce((n, c) => n + c.cost, 0),
    [String(live.length), ...live.flatMap((c) => c.tokens)],
  );
  if (kind === 'and') group.kids = live;
  return group;
}

function compileFilter(filter: Filter): Compiled {
  switch (filter.kind) {
    case 'any': {
      const values = distinctValues(filter.values);
      if (values.length === 0) return FALSE;
      return filter.field === 'id' ? compileIds('idin', values) : compileSets('any', filter.field, values);
    }
    case 'all': {
      const values = distinctValues(filter.values);
      if (values.length === 0) return TRUE;
      if (filter.field === 'id') return values.length === 1 ? compileIds('idin', values) : FALSE;
      return compileSets('all', filter.field, values);
    }
    case 'none': {
      const values = distinctValues(filter.values);
      if (values.length === 0) return TRUE;
      return filter.field === 'id' ? compileIds('idnot', values) : compileSets('none', filter.field, values);
    }
    case 'range': {
      const b = rangeBounds(filter);
      const bounds = [
        b.lo === undefined ? '' : ord(b.lo),
        b.loIncl ? '1' : '0',
        b.hi === undefined ? '' : ord(b.hi),
        b.hiIncl ? '1' : '0',
      ];
      return filter.field === 'id' ? node('idrange', 2, bounds) : node('range', 2, [name(filter.field), ...bounds]);
    }
    case 'text': {
      const includes = searchTerms(filter.includes);
      const excludes = searchTerms(filter.excludes);
      const fields = [...new Set(filter.fields)];
      if (includes.length > 0 && fields.length === 0) return FALSE;
      if (includes.length === 0 && (excludes.length === 0 || fields.length === 0)) return TRUE;
      const tokens: Token[] = [String(fields.length), ...fields.map(name), String(includes.length)];
      for (const term of includes) tokens.push(...needle(term));
      tokens.push(String(excludes.length));
      for (const term of excludes) tokens.push(...needle(term));
      return node('text', 5, tokens);
    }
    case 'or':
    case 'and':
      return compileGroup(filter.kind, filter.filters.map(compileFilter));
  }
}

function compileOrder(order: Order): Token[] {
  switch (order.kind) {
    case 'field':
      return ['field', order.field === 'id' ? '1' : '0', order.field === 'id' ? '' : name(order.field), order.direction];
    case 'list': {
      const values = distinctValues(order.values);
      const isId = order.field === 'id';
      return ['list', isId ? '1' : '0', String(values.length), ...values.map((v) => (isId ? ord(v) : setSuffix(order.field, v)))];
    }
    case 'relevance': {
      const terms = searchTerms(order.terms);
      const tieBreak = order.tieBreak;
      return [
        'relevance',
        ...needle(order.phrase.toLowerCase()),
        String(terms.length),
        ...terms.flatMap(needle),
        name(order.columns.title),
        name(order.columns.excerpt),
        name(order.columns.content),
        tieBreak.field === 'id' ? '1' : '0',
        tieBreak.field === 'id' ? '' : name(tieBreak.field),
        tieBreak.direction,
      ];
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// Lua. Redis runs Lua 5.1: locals only (globals are refused), no integer division, 1-based arrays.

const LUA_COMMON = String.raw`
local CHUNK = 2000
local function chunked(cmd, key, list)
  local out = {}
  for i = 1, #list, CHUNK do
    local part = redis.call(cmd, key, unpack(list, i, math.min(i + CHUNK - 1, #list)))
    for j = 1, #part do out[#out + 1] = part[j] end
  end
  return out
end
`;

/**
 * The text index's vocabulary upkeep, shared by COMMIT and BULK_VOCABULARY. Per collection and text column:
 *   C:w:<column>:<token>       set of handles whose column holds the token (a posting set)
 *   C:v:<column>               set of the tokens whose posting set is not empty (the vocabulary)
 *   C:y:<column>:<trigram>     set of the vocabulary's tokens of at most LONG_TOKEN_BYTES containing the trigram
 *   C:y:<column>:long          set of the longer vocabulary tokens
 * grown: tokens that gained a posting (new to the vocabulary or not); shrunk: tokens that only lost some.
 */
const LUA_VOCABULARY = String.raw`
local LUA_TOKEN = '[0-9A-Za-z\128-\255]+'
local LONG_TOKENS = '${LONG_TOKENS}'
local function sadd(key, list)
  -- unpack is bounded by Lua's C stack (8000 values).
  for i = 1, #list, 4000 do redis.call('SADD', key, unpack(list, i, math.min(i + 3999, #list))) end
end
local function srem(key, list)
  for i = 1, #list, 4000 do redis.call('SREM', key, unpack(list, i, math.min(i + 3999, #list))) end
end
local function updateVocabulary(postingPrefix, vocabKey, trigramPrefix, grown, shrunk)
  local adds, removes = {}, {}
  local function each(tok, into)
    -- A token listed under each of its n trigrams costs n times its own length: a long one (a pasted blob, one
    -- word of 70,000 bytes) would make writes quadratic, so those are listed once, under LONG_TOKENS.
    if #tok > ${LONG_TOKEN_BYTES} then
      local list = into[LONG_TOKENS]
      if not list then list = {}; into[LONG_TOKENS] = list end
      list[#list + 1] = tok
      return
    end
    local seen = {}
    for i = 1, #tok - 2 do
      local tri = string.sub(tok, i, i + 2)
      if not seen[tri] then
        seen[tri] = true
        local list = into[tri]
        if not list then list = {}; into[tri] = list end
        list[#list + 1] = tok
      end
    end
  end
  if #grown > 0 then
    local present = chunked('SMISMEMBER', vocabKey, grown)
    local new = {}
    for i, tok in ipairs(grown) do if present[i] == 0 then new[#new + 1] = tok end end
    sadd(vocabKey, new)
    for _, tok in ipairs(new) do each(tok, adds) end
  end
  if #shrunk > 0 then
    local gone = {}
    for _, tok in ipairs(shrunk) do
      if redis.call('EXISTS', postingPrefix .. tok) == 0 then gone[#gone + 1] = tok end
    end
    srem(vocabKey, gone)
    for _, tok in ipairs(gone) do each(tok, removes) end
  end
  for tri, list in pairs(removes) do srem(trigramPrefix .. tri, list) end
  for tri, list in pairs(adds) do sadd(trigramPrefix .. tri, list) end
end
`;

const COMMIT = String.raw`
${LUA_COMMON}
${LUA_VOCABULARY}
-- ARGV: prefix, bulk ('1': the set and posting memberships of documents new to the generation are left to the
-- client, which is told their handles; only for a staged generation), number of sections; per section (one
-- projection's commit): projection, checkpoint JSON ('' = leave it), generation ('' = the live one), fence
-- ('' = none), expected checkpoint position ('' = no check, '-' = no checkpoint), number of writes; then every
-- section's writes, in order. Every section is checked before anything is written, so a refused section refuses the
-- whole call.
local P, bulk = ARGV[1], ARGV[2] == '1'
local p = 4
local function arg() local v = ARGV[p]; p = p + 1; return v end
local sections = {}
local newestFence = nil
for s = 1, tonumber(ARGV[3]) do
  local projection, checkpoint, G, fence, expected, writes = arg(), arg(), arg(), arg(), arg(), tonumber(arg())
  if expected ~= '' then
    local current = redis.call('HGET', P .. 'checkpoints', projection)
    local holds
    if expected == '-' then holds = not current
    else holds = current and cjson.decode(current).position == tonumber(expected) end
    if not holds then return redis.error_reply('STALE checkpoint ' .. projection .. ' is not at ' .. expected) end
  end
  local live = tonumber(redis.call('HGET', P .. 'gen:live', projection) or '0')
  local staged = false
  if G == '' then G = live else G = tonumber(G) end
  if G ~= live then
    if tonumber(redis.call('HGET', P .. 'gen:staged', projection) or '-1') ~= G then
      return redis.error_reply('STALE generation ' .. G .. ' of ' .. projection .. ' is neither live nor staged')
    end
    staged = true
  elseif bulk then
    return redis.error_reply('bulk commits go to a staged generation only')
  elseif fence ~= '' then
    if newestFence == nil then newestFence = redis.call('GET', P .. 'projector:fence') end
    if newestFence ~= fence then return redis.error_reply('STALE fence ' .. fence .. ' is not the newest projector lease') end
  end
  sections[s] = { projection = projection, checkpoint = checkpoint, G = G, staged = staged, writes = writes }
end

local function pairsToMap(list)
  local m = {}
  for i = 1, #list, 2 do m[list[i]] = list[i + 1] end
  return m
end
local function toSet(list)
  local m = {}
  for _, v in ipairs(list) do m[v] = true end
  return m
end
-- The stored text's indexed tokens (MIN_TOKEN_BYTES and more).
local function tokensOf(text)
  local t = {}
  for tok in string.gmatch(text, LUA_TOKEN) do
    if #tok >= ${MIN_TOKEN_BYTES} then t[tok] = true end
  end
  return t
end
-- The distinct tokens the client sent, space-separated.
local function sentTokens(packed)
  local t = {}
  for tok in string.gmatch(packed, '[^ ]+') do t[tok] = true end
  return t
end

-- Set memberships (set fields, posting sets) are gathered over the whole call and sent at its end as one variadic
-- SREM and SADD per set: the documents of a batch share most posting sets, so this is far fewer calls than one
-- per token per document. Per (set, handle) the last change wins, which is what applying them in order gives;
-- nothing in the script reads set memberships before the end.
-- Kept as prefix → suffix → handle → present, so no key string is built per token per document.
local memberships = {}
local function member(prefix, suffix, h, present)
  local byPrefix = memberships[prefix]
  if not byPrefix then byPrefix = {}; memberships[prefix] = byPrefix end
  local m = byPrefix[suffix]
  if not m then m = {}; byPrefix[suffix] = m end
  m[h] = present
end
-- Hash and sorted-set writes are buffered as well, per key (hash field → value, or false to delete it; zset member →
-- present), and sent at the end as one variadic HDEL, HSET, ZREM and ZADD per key: per document there are a dozen
-- of each, and one call per key per batch costs far less than one per document. Reads of hashes go through hget,
-- which sees the buffer, so a document written twice in one call reads its own first write.
local hashes, zsets = {}, {}
local function hset(key, field, value)
  local t = hashes[key]
  if not t then t = {}; hashes[key] = t end
  t[field] = value
end
local function hdel(key, field) hset(key, field, false) end
local function hget(key, field)
  local t = hashes[key]
  if t then
    local v = t[field]
    if v ~= nil then return v end
  end
  return redis.call('HGET', key, field)
end
local function zset(key, m, present)
  local t = zsets[key]
  if not t then t = {}; zsets[key] = t end
  t[m] = present
end
local function flushWrites()
  for key, t in pairs(hashes) do
    local sets, dels = {}, {}
    for f, v in pairs(t) do
      if v then sets[#sets + 1] = f; sets[#sets + 1] = v else dels[#dels + 1] = f end
    end
    for i = 1, #dels, 4000 do redis.call('HDEL', key, unpack(dels, i, math.min(i + 3999, #dels))) end
    for i = 1, #sets, 4000 do redis.call('HSET', key, unpack(sets, i, math.min(i + 3999, #sets))) end
  end
  for key, t in pairs(zsets) do
    local adds, removes = {}, {}
    for m, present in pairs(t) do
      if present then adds[#adds + 1] = 0; adds[#adds + 1] = m else removes[#removes + 1] = m end
    end
    for i = 1, #removes, 4000 do redis.call('ZREM', key, unpack(removes, i, math.min(i + 3999, #removes))) end
    for i = 1, #adds, 4000 do redis.call('ZADD', key, unpack(adds, i, math.min(i + 3999, #adds))) end
  end
end

-- Posting prefixes (C:w:<column>:) → their vocabulary keys.
local vocabularies = {}
local function postingPrefix(C, col)
  local prefix = C .. 'w:' .. col .. ':'
  if not vocabularies[prefix] then vocabularies[prefix] = { C .. 'v:' .. col, C .. 'y:' .. col .. ':' } end
  return prefix
end
local function flushMemberships()
  for prefix, byPrefix in pairs(memberships) do
    local vocabulary = vocabularies[prefix]
    local grown, shrunk = {}, {}
    for suffix, m in pairs(byPrefix) do
      local key = prefix .. suffix
      local adds, removes = {}, {}
      for h, present in pairs(m) do
        if present then adds[#adds + 1] = h else removes[#removes + 1] = h end
      end
      srem(key, removes)
      sadd(key, adds)
      if #adds > 0 then grown[#grown + 1] = suffix elseif #removes > 0 then shrunk[#shrunk + 1] = suffix end
    end
    if vocabulary then updateVocabulary(prefix, vocabulary[1], vocabulary[2], grown, shrunk) end
  end
end

-- Moves a document's memberships from the old entry to the new one (nil: none), touching only what changed.
-- skipSets: a bulk commit's new document, whose set and posting memberships the client adds.
local function reindex(C, h, oid, old, new, texts, packs, skipSets)
  local oldS, newS = pairsToMap(old and old.s or {}), pairsToMap(new and new.s or {})
  for f, k in pairs(oldS) do
    if newS[f] ~= k then
      zset(C .. 'z:' .. f, k .. oid .. h, false)
      if newS[f] == nil then hdel(C .. 'k:' .. f, h) end
    end
  end
  for f, k in pairs(newS) do
    if oldS[f] ~= k then
      zset(C .. 'z:' .. f, k .. oid .. h, true)
      hset(C .. 'k:' .. f, h, k .. oid .. h)
    end
  end
  local oldT, newT = toSet(old and old.t or {}), toSet(new and new.t or {})
  local setPrefix = C .. 's:'
  for s in pairs(oldT) do if not newT[s] then member(setPrefix, s, h, false) end end
  if not skipSets then
    for s in pairs(newT) do if not oldT[s] then member(setPrefix, s, h, true) end end
  end
  local oldX, newX = toSet(old and old.x or {}), toSet(new and new.x or {})
  for col in pairs(oldX) do
    if not newX[col] then
      local text = hget(C .. 'x:' .. col, h) or ''
      local prefix = postingPrefix(C, col)
      for tok in pairs(tokensOf(text)) do member(prefix, tok, h, false) end
      hdel(C .. 'x:' .. col, h)
    end
  end
  for col in pairs(newX) do
    local text = texts[col]
    local prev = nil
    if oldX[col] then prev = hget(C .. 'x:' .. col, h) or '' end
    if prev ~= text then
      local prefix = postingPrefix(C, col)
      if skipSets then
        -- the client adds them
      elseif prev then
        local b = sentTokens(packs[col])
        local a = tokensOf(prev)
        for tok in pairs(a) do if not b[tok] then member(prefix, tok, h, false) end end
        for tok in pairs(b) do if not a[tok] then member(prefix, tok, h, true) end end
      else
        for tok in string.gmatch(packs[col], '[^ ]+') do member(prefix, tok, h, true) end
      end
      -- An empty text is not stored: read back, an absent one is '' to every reader.
      if text == '' then hdel(C .. 'x:' .. col, h) else hset(C .. 'x:' .. col, h, text) end
    end
  end
end

-- Partition orders (IndexEntry.partitions): an entry names its partition fields (P); per value of such a field (its
-- set suffix <field>:ord(value) in t) the document is in C:q:<field>:id as ord(value)·oid·handle and, per sort key
-- in s, in C:q:<field>:<key> as ord(value)·ord(key)·oid·handle. As zset suffix → member prefix (oid·handle follow).
local function partitionOrders(e)
  local t = {}
  if not e or not e.P then return t end
  for _, f in ipairs(e.P) do
    local prefix = f .. ':'
    for _, suffix in ipairs(e.t) do
      if string.sub(suffix, 1, #prefix) == prefix then
        local pv = string.sub(suffix, #prefix + 1)
        local function add(z, m)
          local ms = t[z]
          if not ms then ms = {}; t[z] = ms end
          ms[m] = true
        end
        add(prefix .. 'id', pv)
        for i = 1, #e.s, 2 do add(prefix .. e.s[i], pv .. e.s[i + 1]) end
      end
    end
  end
  return t
end
-- Only memberships that changed are removed or added.
local function repartition(C, h, oid, old, new)
  local a, b = partitionOrders(old), partitionOrders(new)
  for z, ms in pairs(a) do
    for m in pairs(ms) do
      if not (b[z] and b[z][m]) then zset(C .. 'q:' .. z, m .. oid .. h, false) end
    end
  end
  for z, ms in pairs(b) do
    for m in pairs(ms) do
      if not (a[z] and a[z][m]) then zset(C .. 'q:' .. z, m .. oid .. h, true) end
    end
  end
end

local fresh = {}
local marked = {}
local w = 0
for _, section in ipairs(sections) do
  local G = section.G
  local function collectionKey(c)
    if G == 0 then return P .. 'c:' .. c .. ':' end
    return P .. 'g' .. G .. ':c:' .. c .. ':'
  end
  for _ = 1, section.writes do
    w = w + 1
    local C, oid, op = collectionKey(arg()), arg(), arg()
    local h = hget(C .. 'i', oid)
    fresh[w] = ''
    local old = nil
    if h then old = cmsgpack.unpack(hget(C .. 'm', h)) end
    if op == 'P' then
      local json = arg()
      local new, texts, packs = { s = {}, t = {}, x = {} }, {}, {}
      for _ = 1, tonumber(arg()) do
        new.s[#new.s + 1] = arg()
        new.s[#new.s + 1] = arg()
      end
      for _ = 1, tonumber(arg()) do new.t[#new.t + 1] = arg() end
      for _ = 1, tonumber(arg()) do
        local col = arg()
        new.x[#new.x + 1] = col
        texts[col] = arg()
        packs[col] = arg()
      end
      new.P = {}
      for _ = 1, tonumber(arg()) do new.P[#new.P + 1] = arg() end
      if not h then
        h = tostring(redis.call('INCR', C .. 'seq'))
        if bulk then fresh[w] = h end
        hset(C .. 'i', oid, h)
        hset(C .. 'o', h, oid)
        zset(C .. 'z:id', oid .. h, true)
      end
      -- The collection's text is indexed by tokens (QUERY falls back to scanning the text where this is absent).
      if not marked[C] then
        marked[C] = true
        redis.call('SET', C .. 'tx', '1')
      end
      hset(C .. 'd', oid, json)
      reindex(C, h, oid, old, new, texts, packs, fresh[w] ~= '')
      repartition(C, h, oid, old, new)
      hset(C .. 'm', h, cmsgpack.pack(new))
    elseif h then
      reindex(C, h, oid, old, nil, {}, {})
      repartition(C, h, oid, old, nil)
      hdel(C .. 'd', oid)
      hdel(C .. 'i', oid)
      hdel(C .. 'o', h)
      hdel(C .. 'm', h)
      zset(C .. 'z:id', oid .. h, false)
    end
  end
end
flushWrites()
flushMemberships()
for _, section in ipairs(sections) do
  if section.checkpoint == '' then
    -- a bulk commit's earlier steps: the checkpoint moves with the last
  elseif section.staged then
    redis.call('HSET', P .. 'gen:staged-checkpoints', section.projection, section.checkpoint)
  else
    redis.call('HSET', P .. 'checkpoints', section.projection, section.checkpoint)
  end
end
if bulk then return fresh end
return 1
`;

/**
 * ARGV: prefix, projection, staged generation, then pairs of (collection key prefix, number of documents): a bulk
 * commit's documents new to the generation (see writeNewDocuments). Refuses unless the generation is still staged;
 * marks each collection as indexed by words (C:tx, as COMMIT does) and reserves that many handles in it, returning
 * the last handle of each.
 */
const RESERVE = String.raw`
local P, projection, G = ARGV[1], ARGV[2], ARGV[3]
if redis.call('HGET', P .. 'gen:staged', projection) ~= G then
  return redis.error_reply('STALE generation ' .. G .. ' of ' .. projection .. ' is not staged')
end
local last = {}
for i = 4, #ARGV, 2 do
  redis.call('SET', ARGV[i] .. 'tx', '1')
  last[#last + 1] = redis.call('INCRBY', ARGV[i] .. 'seq', ARGV[i + 1])
end
return last
`;

/**
 * ARGV: quadruples of (posting prefix, vocabulary key, trigram prefix, tokens space-separated): a bulk commit's
 * tokens that gained postings, added to their column's vocabulary (those new to it with their trigrams).
 */
const BULK_VOCABULARY = String.raw`
${LUA_COMMON}
${LUA_VOCABULARY}
for k = 1, #ARGV, 4 do
  local grown = {}
  for tok in string.gmatch(ARGV[k + 3], '[^ ]+') do grown[#grown + 1] = tok end
  updateVocabulary(ARGV[k], ARGV[k + 1], ARGV[k + 2], grown, {})
end
return 1
`;

/**
 * ARGV: prefix, projection, build lease (ms). Stages a new generation of the projection, with its build lease, in one
 * step (a sweep then sees it either numbered above the counter it read or staged with a lease: kept either way), and
 * returns it and the generation it replaced as staged (an abandoned build's, or false). The number is the counter's
 * next value, or one past every generation recorded (live, serving a collection, staged, retired) if the counter is
 * not already past them (it only goes back if its key was lost). So a new generation starts empty without a walk of
 * the keyspace to clear it: nobody has written under its number. Keys of a generation nothing records any more (an
 * abandoned build's, un-staged) are the sweep's.
 */
const STAGE = String.raw`
local P, projection, leaseMs = ARGV[1], ARGV[2], ARGV[3]
local G = redis.call('INCR', P .. 'gen:seq')
local highest = 0
local function see(values)
  for _, value in ipairs(values) do
    local n = tonumber(value)
    if n and n > highest then highest = n end
  end
end
see(redis.call('HVALS', P .. 'gen:live'))
see(redis.call('HVALS', P .. 'gen:collections'))
see(redis.call('HVALS', P .. 'gen:staged'))
see(redis.call('HKEYS', P .. 'gen:retired'))
if G <= highest then
  G = highest + 1
  redis.call('SET', P .. 'gen:seq', G)
end
local previous = redis.call('HGET', P .. 'gen:staged', projection)
redis.call('HSET', P .. 'gen:staged', projection, G)
redis.call('HDEL', P .. 'gen:staged-checkpoints', projection)
redis.call('SET', P .. 'gen:building:' .. G, projection, 'PX', leaseMs)
return { G, previous }
`;

/** ARGV: prefix, projection, staged generation, its collections. Switches readers and the checkpoint to it. */
const PROMOTE = String.raw`
local P, projection, G = ARGV[1], ARGV[2], ARGV[3]
if redis.call('HGET', P .. 'gen:staged', projection) ~= G then
  return redis.error_reply('STALE generation ' .. G .. ' of ' .. projection .. ' is not staged')
end
local stagedCheckpoint = redis.call('HGET', P .. 'gen:staged-checkpoints', projection)
local liveCheckpoint = redis.call('HGET', P .. 'checkpoints', projection)
if liveCheckpoint then
  if not stagedCheckpoint then return 'behind' end
  if cjson.decode(stagedCheckpoint).position < cjson.decode(liveCheckpoint).position then return 'behind' end
end
local retired = redis.call('HGET', P .. 'gen:live', projection) or '0'
local now = redis.call('TIME')
redis.call('HSET', P .. 'gen:retired', retired, now[1] .. string.format('%03d', math.floor(tonumber(now[2]) / 1000)))
redis.call('HSET', P .. 'gen:live', projection, G)
for i = 4, #ARGV do redis.call('HSET', P .. 'gen:collections', ARGV[i], G) end
if stagedCheckpoint then
  redis.call('HSET', P .. 'checkpoints', projection, stagedCheckpoint)
else
  redis.call('HDEL', P .. 'checkpoints', projection)
end
redis.call('HDEL', P .. 'gen:staged', projection)
redis.call('HDEL', P .. 'gen:staged-checkpoints', projection)
redis.call('PUBLISH', P .. 'gen:switched', projection)
return retired
`;

/**
 * QUERY's first step for a partition-shaped plan (partitionShape): paging by rank in C:q:<field>:<key>, whose
 * members are ord(value)·ord(key)·ord(id)·handle (ord(value)·ord(id)·handle for id), so O(log n + page) however
 * deep the page. Returns { total, docs… }, or nil when the general path must answer: some document holding the
 * value did not declare the partition (the partition's id zset and the value's set differ in size), or the page
 * reaches documents without the order key.
 * A[base + 1 …]: set suffix of the value, id zset suffix, order zset suffix, ord(value), order is id ('1'/'0'),
 * direction, lo, lo inclusive, hi, hi inclusive ('' bounds are open).
 */
const LUA_PARTITION_PAGE = String.raw`
local function partitionPage(C, offset, take, A, base)
  local setKey, idKey, orderKey, pv = C .. 's:' .. A[base + 1], C .. 'q:' .. A[base + 2], C .. 'q:' .. A[base + 3], A[base + 4]
  local isId, rev = A[base + 5] == '1', A[base + 6] == 'desc'
  local lo, loIncl, hi, hiIncl = A[base + 7], A[base + 8] == '1', A[base + 9], A[base + 10] == '1'
  local size = redis.call('ZLEXCOUNT', idKey, '[' .. pv, '(' .. pv .. '\255')
  if size ~= redis.call('SCARD', setKey) then return nil end
  local lexLo, lexHi = '[' .. pv, '(' .. pv .. '\255'
  if lo ~= '' then
    if loIncl then lexLo = '[' .. pv .. lo else lexLo = '(' .. pv .. lo .. '\255' end
  end
  if hi ~= '' then
    if hiIncl then lexHi = '(' .. pv .. hi .. '\255' else lexHi = '(' .. pv .. hi end
  end
  local n = redis.call('ZLEXCOUNT', orderKey, lexLo, lexHi)
  local total = size
  if lo ~= '' or hi ~= '' then
    total = n
  elseif n < size and offset + take > n then
    return nil
  end
  local result = { total }
  if take == 0 or offset >= n then return result end
  -- The slice's first rank: the number of members before its lower bound.
  local bound = string.sub(lexLo, 2)
  local first
  if string.sub(lexLo, 1, 1) == '[' then first = redis.call('ZLEXCOUNT', orderKey, '-', '(' .. bound)
  else first = redis.call('ZLEXCOUNT', orderKey, '-', '[' .. bound) end
  local last = first + n - 1
  local from, to
  if rev then
    to = last - offset
    from = math.max(first, to - take + 1)
  else
    from = first + offset
    to = math.min(last, from + take - 1)
  end
  local ms = redis.call('ZRANGE', orderKey, from, to)
  local function skip(s, pos)
    if string.byte(s, pos) == 1 then return pos + 9 end
    return string.find(s, '\0', pos + 1, true) + 1
  end
  local oids = {}
  for i, m in ipairs(ms) do
    local pos = skip(m, 1)
    if not isId then pos = skip(m, pos) end
    local at = i
    if rev then at = #ms - i + 1 end
    oids[at] = string.sub(m, pos, skip(m, pos) - 1)
  end
  if #oids > 0 then
    for i, doc in ipairs(redis.call('HMGET', C .. 'd', unpack(oids))) do result[i + 1] = doc end
  end
  return result
end
`;

const QUERY = String.raw`
${LUA_COMMON}
${LUA_PARTITION_PAGE}
local C = ARGV[1]
local offset = tonumber(ARGV[2])
local take = tonumber(ARGV[3])
if take < 0 then take = math.huge end
local p = 4
local function arg() local v = ARGV[p]; p = p + 1; return v end
local LOG2 = math.log(2)
local WALK_WEIGHT = 4

-- A partition hint ends ARGV: its tokens, then their count (0: none). The general path never reads it.
local hintCount = tonumber(ARGV[#ARGV])
if hintCount > 0 then
  local paged = partitionPage(C, offset, take, ARGV, #ARGV - hintCount - 1)
  if paged then return paged end
end

-- Byte order. Lua compares strings with strcoll, which is byte order only under the C locale: probe it.
local lt, sortBytes
if ('B' < 'a') and ('\127' < '\128') and ('\128' < '\255') and ('a\0b' < 'a\0c') and ('\195\169' > 'z') then
  lt = function(a, b) return a < b end
  sortBytes = function(list) table.sort(list) end
else
  lt = function(a, b)
    for i = 1, math.min(#a, #b) do
      local x, y = string.byte(a, i), string.byte(b, i)
      if x ~= y then return x < y end
    end
    return #a < #b
  end
  sortBytes = function(list) table.sort(list, lt) end
end

-- Members are ord(key)·ord(id)·handle (or ord(id)·handle in z:id): skip the prefix-free encodings.
local function skip(s, pos)
  if string.byte(s, pos) == 1 then return pos + 9 end
  return string.find(s, '\0', pos + 1, true) + 1
end
local function handleOf(m, isId)
  local pos = skip(m, 1)
  if not isId then pos = skip(m, pos) end
  return string.sub(m, pos)
end
local function oidsOf(hs) return chunked('HMGET', C .. 'o', hs) end
-- C:k:<key> holds ord(key)·ord(id)·handle, the order zset's member (a collection written before layout 2 holds
-- ord(key) alone): the key part of either, and whether a value is the whole member.
local function isMember(v) return skip(v, 1) <= #v end
-- The ids of handles the ordering has seen in members, so the page's documents need no HMGET of C:o.
local knownOids = {}

-- Search terms (needles): the term; its probe, whose trigrams find the vocabulary tokens containing it ('' when
-- it has no token piece of three bytes); whether the probe is the whole term (then the posting sets of those tokens
-- hold exactly the documents containing the term); the probe's trigrams.
local function readNeedle()
  local t = { term = arg(), probe = arg(), tris = {}, toks = {}, sizes = {}, hits = {} }
  t.exact = arg() == '1'
  for j = 1, tonumber(arg()) do t.tris[j] = arg() end
  return t
end

-- Whether the collection's text is indexed by tokens (COMMIT marks it); a collection written before the token
-- index (its rebuild is under way) is searched by scanning its text.
local tokenIndex = nil
local function indexed(t)
  if t.probe == '' then return false end
  if tokenIndex == nil then tokenIndex = redis.call('EXISTS', C .. 'tx') == 1 end
  return tokenIndex
end

-- The posting keys of a column's vocabulary tokens that contain the needle's probe (shared by the needles of a
-- query with the same probe: a search's filter and its relevance order look up the same terms).
local postingKeysOf = {}
local function postingKeys(t, col)
  local keys = t.toks[col]
  if keys then return keys end
  local id = col .. '\255' .. t.probe
  keys = postingKeysOf[id]
  if not keys then
    local tris = {}
    for j, tri in ipairs(t.tris) do tris[j] = C .. 'y:' .. col .. ':' .. tri end
    keys = {}
    for _, tok in ipairs(redis.call('SINTER', unpack(tris))) do
      if string.find(tok, t.probe, 1, true) then keys[#keys + 1] = C .. 'w:' .. col .. ':' .. tok end
    end
    -- Long tokens are listed apart from the trigram sets (see the vocabulary's upkeep); a site has few.
    for _, tok in ipairs(redis.call('SMEMBERS', C .. 'y:' .. col .. ':' .. '${LONG_TOKENS}')) do
      if string.find(tok, t.probe, 1, true) then keys[#keys + 1] = C .. 'w:' .. col .. ':' .. tok end
    end
    postingKeysOf[id] = keys
  end
  t.toks[col] = keys
  return keys
end

-- Sizes of posting sets, read once per query.
local cardOf = {}
local function card(key)
  local c = cardOf[key]
  if not c then
    c = redis.call('SCARD', key)
    cardOf[key] = c
  end
  return c
end

-- The documents whose columns hold a token containing the probe, as a list and a set.
local function postingUnion(t, cols)
  local seen, out = {}, {}
  for _, col in ipairs(cols) do
    local keys = postingKeys(t, col)
    for i = 1, #keys, 1000 do
      for _, h in ipairs(redis.call('SUNION', unpack(keys, i, math.min(i + 999, #keys)))) do
        if not seen[h] then seen[h] = true; out[#out + 1] = h end
      end
    end
  end
  return out, seen
end

-- An upper bound of postingUnion's size: the sum of the posting sets' sizes.
local function postingSize(t, cols)
  local id = table.concat(cols, '\255')
  local size = t.sizes[id]
  if size then return size end
  size = 0
  for _, col in ipairs(cols) do
    for _, key in ipairs(postingKeys(t, col)) do size = size + card(key) end
  end
  t.sizes[id] = size
  return size
end

-- The handles of hs in the posting sets of the needle's tokens in cols, as a set: tested with SMISMEMBER per token,
-- or, when that would send more handles than the posting sets hold, by listing the posting sets once.
local function postingHits(t, cols, hs)
  local id = table.concat(cols, '\255')
  if t.hits[id] then return t.hits[id] end
  local keys = {}
  for _, col in ipairs(cols) do
    for _, key in ipairs(postingKeys(t, col)) do keys[#keys + 1] = key end
  end
  if #keys * #hs > postingSize(t, cols) then
    local _, seen = postingUnion(t, cols)
    t.hits[id] = seen
    return seen
  end
  local hit, rest = {}, hs
  for _, key in ipairs(keys) do
    if #rest == 0 then break end
    local r = chunked('SMISMEMBER', key, rest)
    local left = {}
    for i, h in ipairs(rest) do
      if r[i] == 1 then hit[h] = true else left[#left + 1] = h end
    end
    rest = left
  end
  return hit
end

-- The filter program.
local parse
parse = function()
  local n = { op = arg() }
  local op = n.op
  if op == 'any' or op == 'all' or op == 'none' then
    n.keys = {}
    for i = 1, tonumber(arg()) do n.keys[i] = C .. 's:' .. arg() end
  elseif op == 'idin' or op == 'idnot' then
    local oids = {}
    for i = 1, tonumber(arg()) do oids[i] = arg() end
    n.hs, n.set = {}, {}
    for _, h in ipairs(chunked('HMGET', C .. 'i', oids)) do
      if h then
        n.hs[#n.hs + 1] = h
        n.set[h] = true
      end
    end
  elseif op == 'range' or op == 'idrange' then
    if op == 'range' then
      n.f = arg()
      n.z, n.k = C .. 'z:' .. n.f, C .. 'k:' .. n.f
    else
      n.z = C .. 'z:id'
    end
    n.lo, n.loIncl, n.hi, n.hiIncl = arg(), arg() == '1', arg(), arg() == '1'
    n.lexLo, n.lexHi = '-', '+'
    if n.lo ~= '' then
      if n.loIncl then n.lexLo = '[' .. n.lo else n.lexLo = '(' .. n.lo .. '\255' end
    end
    if n.hi ~= '' then
      if n.hiIncl then n.lexHi = '(' .. n.hi .. '\255' else n.lexHi = '(' .. n.hi end
    end
  elseif op == 'text' then
    n.cols, n.inc, n.exc = {}, {}, {}
    for i = 1, tonumber(arg()) do n.cols[i] = arg() end
    for i = 1, tonumber(arg()) do n.inc[i] = readNeedle() end
    for i = 1, tonumber(arg()) do n.exc[i] = readNeedle() end
  elseif op == 'and' or op == 'or' then
    n.kids = {}
    for i = 1, tonumber(arg()) do n.kids[i] = parse() end
  end
  return n
end

local function inRange(n, k)
  if n.lo ~= '' then
    if n.loIncl then
      if lt(k, n.lo) then return false end
    elseif not lt(n.lo, k) then return false end
  end
  if n.hi ~= '' then
    if n.hiIncl then
      if lt(n.hi, k) then return false end
    elseif not lt(k, n.hi) then return false end
  end
  return true
end

-- Whether a member ord(key)·ord(id)·handle lies within the node's lex bounds ('(' excludes the bound, '[' includes it).
local function inLex(n, m)
  if n.loB == nil then
    n.loB = n.lexLo ~= '-' and string.sub(n.lexLo, 2)
    n.loOpen = string.byte(n.lexLo, 1) == 40
    n.hiB = n.lexHi ~= '+' and string.sub(n.lexHi, 2)
    n.hiOpen = string.byte(n.lexHi, 1) == 40
  end
  if n.loB then
    if n.loOpen then
      if not lt(n.loB, m) then return false end
    elseif lt(m, n.loB) then return false end
  end
  if n.hiB then
    if n.hiOpen then
      if not lt(m, n.hiB) then return false end
    elseif lt(n.hiB, m) then return false end
  end
  return true
end

local function contains(text, term) return text and string.find(text, term, 1, true) ~= nil end

-- Sort keys read by range tests, per field and handle, so ordering the matches by that field reads them once.
local keysRead = {}

-- keep(n, hs, fromGen): the handles of hs that match n, in their order. fromGen: hs is gen(n), so the kids of a
-- conjunction that gen already applied exactly (n.covered) are not tested again.
local keep
keep = function(n, hs, fromGen)
  local op = n.op
  if #hs == 0 or op == 'T' then return hs end
  if op == 'F' then return {} end
  if op == 'any' or op == 'or' then
    local hit, rest = {}, hs
    for _, kid in ipairs(n.keys or n.kids) do
      local got
      if op == 'any' then
        local r = chunked('SMISMEMBER', kid, rest)
        got = {}
        for i, h in ipairs(rest) do if r[i] == 1 then got[#got + 1] = h end end
      else
        got = keep(kid, rest)
      end
      if #got > 0 then
        for _, h in ipairs(got) do hit[h] = true end
        local left = {}
        for _, h in ipairs(rest) do if not hit[h] then left[#left + 1] = h end end
        rest = left
      end
      if #rest == 0 then break end
    end
    local out = {}
    for _, h in ipairs(hs) do if hit[h] then out[#out + 1] = h end end
    return out
  end
  if op == 'all' or op == 'none' then
    local want = op == 'all' and 1 or 0
    local cur = hs
    for _, key in ipairs(n.keys) do
      local r = chunked('SMISMEMBER', key, cur)
      local left = {}
      for i, h in ipairs(cur) do if r[i] == want then left[#left + 1] = h end end
      cur = left
      if #cur == 0 then break end
    end
    return cur
  end
  if op == 'and' then
    local cur = hs
    for _, kid in ipairs(n.kids) do
      if not (fromGen and n.covered and n.covered[kid]) then cur = keep(kid, cur) end
      if #cur == 0 then break end
    end
    return cur
  end
  local out = {}
  if op == 'idin' or op == 'idnot' then
    local want = op == 'idin'
    for _, h in ipairs(hs) do if (n.set[h] == true) == want then out[#out + 1] = h end end
  elseif op == 'range' or op == 'idrange' then
    local ks
    if op == 'range' then
      ks = chunked('HMGET', n.k, hs)
      local read = keysRead[n.f]
      if not read then read = {}; keysRead[n.f] = read end
      for i, h in ipairs(hs) do read[h] = ks[i] end
    else
      ks = oidsOf(hs)
    end
    -- Sort keys' values (members, or ord(key) alone before layout 2) meet the lex bounds as ZRANGE BYLEX would.
    local test = inRange
    if op == 'range' then test = inLex end
    for i, h in ipairs(hs) do if ks[i] and test(n, ks[i]) then out[#out + 1] = h end end
  elseif op == 'text' then
    -- Terms the token index answers exactly first (set lookups); the stored text decides the others.
    local cur, inc, exc = hs, {}, {}
    for _, t in ipairs(n.inc) do
      if t.exact and indexed(t) then
        local hit, left = postingHits(t, n.cols, cur), {}
        for _, h in ipairs(cur) do if hit[h] then left[#left + 1] = h end end
        cur = left
        if #cur == 0 then return cur end
      else
        inc[#inc + 1] = t.term
      end
    end
    for _, t in ipairs(n.exc) do
      if t.exact and indexed(t) then
        local hit, left = postingHits(t, n.cols, cur), {}
        for _, h in ipairs(cur) do if not hit[h] then left[#left + 1] = h end end
        cur = left
        if #cur == 0 then return cur end
      else
        exc[#exc + 1] = t.term
      end
    end
    if #inc == 0 and #exc == 0 then return cur end
    local cols = {}
    for j, col in ipairs(n.cols) do cols[j] = chunked('HMGET', C .. 'x:' .. col, cur) end
    for i, h in ipairs(cur) do
      local ok = true
      for _, term in ipairs(inc) do
        local found = false
        for j = 1, #cols do
          if contains(cols[j][i], term) then found = true; break end
        end
        if not found then ok = false; break end
      end
      if ok then
        for _, term in ipairs(exc) do
          for j = 1, #cols do
            if contains(cols[j][i], term) then ok = false; break end
          end
          if not ok then break end
        end
      end
      if ok then out[#out + 1] = h end
    end
  else
    error('read model: unknown filter op ' .. tostring(op))
  end
  return out
end

-- est(n): size of a candidate superset gen(n) can list, or nil when only a scan would do.
local est
est = function(n)
  if n.estDone then return n.estValue end
  local op, e = n.op, nil
  if op == 'F' then e = 0
  elseif op == 'any' then
    e = 0
    for _, k in ipairs(n.keys) do e = e + redis.call('SCARD', k) end
  elseif op == 'all' then
    for _, k in ipairs(n.keys) do
      local c = redis.call('SCARD', k)
      if e == nil or c < e then e = c end
    end
  elseif op == 'idin' then e = #n.hs
  elseif op == 'range' or op == 'idrange' then e = redis.call('ZLEXCOUNT', n.z, n.lexLo, n.lexHi)
  elseif op == 'text' then
    for _, inc in ipairs(n.inc) do
      if indexed(inc) then
        local size = postingSize(inc, n.cols)
        if e == nil or size < e then e, n.best = size, inc end
      end
    end
  elseif op == 'or' then
    e = 0
    for _, kid in ipairs(n.kids) do
      local k = est(kid)
      if k == nil then e = nil; break end
      e = e + k
    end
  elseif op == 'and' then
    for _, kid in ipairs(n.kids) do
      local k = est(kid)
      if k ~= nil and (e == nil or k < e) then e, n.best = k, kid end
    end
  end
  n.estDone, n.estValue = true, e
  return e
end

local gen
gen = function(n)
  local op = n.op
  if op == 'F' then return {} end
  if op == 'any' then
    if #n.keys == 1 then return redis.call('SMEMBERS', n.keys[1]) end
    return redis.call('SUNION', unpack(n.keys))
  end
  if op == 'all' then return redis.call('SINTER', unpack(n.keys)) end
  if op == 'idin' then return n.hs end
  if op == 'range' or op == 'idrange' then
    local out = {}
    for i, m in ipairs(redis.call('ZRANGE', n.z, n.lexLo, n.lexHi, 'BYLEX')) do out[i] = handleOf(m, op == 'idrange') end
    return out
  end
  if op == 'and' then
    -- When the smallest candidate set is a set filter, intersect it with the conjunction's other set filters
    -- inside Redis (SINTER walks the smallest set) instead of testing its members one filter at a time.
    local keys, bestIsSet = {}, false
    for _, kid in ipairs(n.kids) do
      if kid.op == 'all' or (kid.op == 'any' and #kid.keys == 1) then
        for _, k in ipairs(kid.keys) do keys[#keys + 1] = k end
        if kid == n.best then bestIsSet = true end
      end
    end
    if bestIsSet and #keys > 1 then
      n.covered = {}
      for _, kid in ipairs(n.kids) do
        if kid.op == 'all' or (kid.op == 'any' and #kid.keys == 1) then n.covered[kid] = true end
      end
      return redis.call('SINTER', unpack(keys))
    end
    local b = n.best.op
    if b == 'any' or b == 'all' or b == 'idin' or b == 'range' or b == 'idrange' then n.covered = { [n.best] = true } end
    return gen(n.best)
  end
  local seen, out = {}, {}
  local function add(list)
    for _, h in ipairs(list) do
      if not seen[h] then seen[h] = true; out[#out + 1] = h end
    end
  end
  if op == 'text' then
    local list, set = postingUnion(n.best, n.cols)
    -- Exact for that term: keep then tests it by set lookups.
    if n.best.exact then n.best.hits[table.concat(n.cols, '\255')] = set end
    return list
  elseif op == 'or' then
    for _, kid in ipairs(n.kids) do add(gen(kid)) end
  end
  return out
end

local function allHandles()
  local out = {}
  for i, m in ipairs(redis.call('ZRANGE', C .. 'z:id', 0, -1)) do out[i] = handleOf(m, true) end
  return out
end

local function matches(n)
  if est(n) == nil then return keep(n, allHandles()) end
  return keep(n, gen(n), true)
end

-- Exact match count for set-only shapes, or nil.
local fastCount
fastCount = function(n, N)
  local op = n.op
  if op == 'T' then return N end
  if op == 'F' then return 0 end
  if op == 'idin' then return #n.hs end
  if op == 'idnot' then return N - #n.hs end
  if op == 'range' or op == 'idrange' then return est(n) end
  if op == 'all' then return redis.call('SINTERCARD', #n.keys, unpack(n.keys)) end
  if op == 'any' or op == 'none' then
    -- The union: the largest set whole, then the members of each smaller set absent from the larger ones.
    local sized = {}
    for i, k in ipairs(n.keys) do sized[i] = { k = k, c = redis.call('SCARD', k) } end
    table.sort(sized, function(a, b) return a.c > b.c end)
    local total = sized[1].c
    for i = 2, #sized do
      local ms = redis.call('SMEMBERS', sized[i].k)
      for j = 1, i - 1 do
        if #ms == 0 then break end
        local r = chunked('SMISMEMBER', sized[j].k, ms)
        local left = {}
        for x, h in ipairs(ms) do if r[x] == 0 then left[#left + 1] = h end end
        ms = left
      end
      total = total + #ms
    end
    if op == 'none' then return N - total end
    return total
  end
  if op == 'and' then
    local keys = {}
    for _, kid in ipairs(n.kids) do
      if kid.op == 'all' or (kid.op == 'any' and #kid.keys == 1) then
        for _, k in ipairs(kid.keys) do keys[#keys + 1] = k end
      else
        return nil
      end
    end
    return redis.call('SINTERCARD', #keys, unpack(keys))
  end
  return nil
end

-- Walks a zset between lex bounds in a direction, handing chunks of handles to visit until it returns true.
local function walk(zkey, lo, hi, rev, isId, first, visit)
  local size = first
  while true do
    local ms
    if rev then
      ms = redis.call('ZRANGE', zkey, hi, lo, 'BYLEX', 'REV', 'LIMIT', 0, size)
    else
      ms = redis.call('ZRANGE', zkey, lo, hi, 'BYLEX', 'LIMIT', 0, size)
    end
    local count = #ms
    if count == 0 then return end
    local hs = {}
    for i = 1, count do hs[i] = handleOf(ms[i], isId) end
    if visit(hs) then return end
    if count < size then return end
    if rev then hi = '(' .. ms[count] else lo = '(' .. ms[count] end
    if size < 4096 then size = size * 2 end
  end
end

local function zkeyOf(F)
  if F == nil then return C .. 'z:id' end
  return C .. 'z:' .. F
end

local function firstChunk(want)
  if want == math.huge then return 1024 end
  return math.floor(math.max(32, math.min(1024, want * 2)))
end

-- The slice [skip, skip + take) of hs ordered by F (nil: id): walk the order zset when hs is dense in it,
-- otherwise sort hs. Rows without the key follow, by id in the same direction.
local function orderSubset(hs, F, rev, skipN, takeN)
  local m = #hs
  local out = {}
  if m == 0 or takeN <= 0 or skipN >= m then return out end
  local isId = F == nil
  local zkey = zkeyOf(F)
  local nz = redis.call('ZCARD', zkey)
  local want = math.min(skipN + takeN, m)
  local walkCost = math.huge
  -- A walked member costs several times a sorted one (its handle is cut out of the member in Lua).
  if nz > 0 then walkCost = WALK_WEIGHT * want * nz / m end
  if walkCost < m * math.log(m + 1) / LOG2 * 2 then
    local wanted, keyed, seen = {}, {}, 0
    for _, h in ipairs(hs) do wanted[h] = true end
    walk(zkey, '-', '+', rev, isId, firstChunk(want * nz / m), function(chunk)
      for _, h in ipairs(chunk) do
        if wanted[h] then
          keyed[h] = true
          seen = seen + 1
          if seen > skipN then
            out[#out + 1] = h
            if #out >= takeN then return true end
          end
        end
      end
      return seen >= m
    end)
    if #out >= takeN or isId then return out end
    local rest = {}
    for _, h in ipairs(hs) do if not keyed[h] then rest[#rest + 1] = h end end
    hs, skipN, isId = rest, math.max(skipN - seen, 0), true
    if #hs == 0 or skipN >= #hs then return out end
  end
  local keys = nil
  if not isId then
    local read = keysRead[F]
    if read then
      keys = {}
      for i, h in ipairs(hs) do
        local k = read[h]
        if k == nil then keys = nil; break end
        keys[i] = k
      end
    end
    if keys == nil then keys = chunked('HMGET', C .. 'k:' .. F, hs) end
  end
  -- Sorted as plain strings, ord(key)·ord(id)·handle (ord(id)·handle without the key), like the order zsets'
  -- members: table.sort without a comparator compares in C, several times faster than through a Lua function.
  local oids = nil
  local function oidAt(i)
    if not oids then oids = oidsOf(hs) end
    return oids[i]
  end
  local keyed, missing = {}, {}
  for i, h in ipairs(hs) do
    local k = keys and keys[i]
    if k then
      if isMember(k) then keyed[#keyed + 1] = k else keyed[#keyed + 1] = k .. oidAt(i) .. h end
    else
      missing[#missing + 1] = oidAt(i) .. h
    end
  end
  sortBytes(keyed)
  sortBytes(missing)
  local i = 0
  for l, list in ipairs({ keyed, missing }) do
    local n = #list
    for j = 1, n do
      i = i + 1
      if i > skipN then
        local m = list[j]
        if rev then m = list[n - j + 1] end
        local from = 1
        if l == 1 then from = skip(m, 1) end
        local to = skip(m, from)
        local h = string.sub(m, to)
        knownOids[h] = string.sub(m, from, to - 1)
        out[#out + 1] = h
        if #out >= takeN then return out end
      end
    end
  end
  return out
end

-- A range on the order key itself, at the root or directly under a root 'and', bounds the walk.
local function rangeOn(n, F)
  local function same(x)
    return (x.op == 'range' and F ~= nil and x.f == F) or (x.op == 'idrange' and F == nil)
  end
  if same(n) then return n end
  if n.op == 'and' then
    for _, kid in ipairs(n.kids) do if same(kid) then return kid end end
  end
  return nil
end

-- Walks the order zset testing chunks until the page is full or all total matches were seen; rows
-- without the key follow by walking z:id.
local function pageByWalk(root, F, rev, skipN, takeN, total, N)
  local out, seen = {}, 0
  local isId = F == nil
  local zkey = zkeyOf(F)
  local lo, hi = '-', '+'
  local rng = rangeOn(root, F)
  if rng then lo, hi = rng.lexLo, rng.lexHi end
  local function visit(hs)
    for _, h in ipairs(keep(root, hs)) do
      seen = seen + 1
      if seen > skipN then
        out[#out + 1] = h
        if #out >= takeN then return true end
      end
    end
    return seen >= total
  end
  if root.op == 'T' or root == rng then
    -- Every entry within the bounds matches: let Redis skip the offset.
    local count = -1
    if takeN ~= math.huge then count = takeN end
    local ms
    if rev then
      ms = redis.call('ZRANGE', zkey, hi, lo, 'BYLEX', 'REV', 'LIMIT', skipN, count)
    else
      ms = redis.call('ZRANGE', zkey, lo, hi, 'BYLEX', 'LIMIT', skipN, count)
    end
    for i, m in ipairs(ms) do out[i] = handleOf(m, isId) end
    if #ms > 0 then seen = skipN + #ms else seen = math.min(skipN, redis.call('ZCARD', zkey)) end
  else
    walk(zkey, lo, hi, rev, isId, firstChunk(math.min(skipN + takeN, total) * N / total), visit)
  end
  if #out < takeN and seen < total and not isId then
    local kkey = C .. 'k:' .. F
    walk(C .. 'z:id', '-', '+', rev, true, 256, function(hs)
      local ks = chunked('HMGET', kkey, hs)
      local bare = {}
      for i, h in ipairs(hs) do if not ks[i] then bare[#bare + 1] = h end end
      return visit(bare)
    end)
  end
  return out
end

local root = parse()
local N = redis.call('ZCARD', C .. 'z:id')
local order = arg()
local page, total = {}, 0

if order == 'field' then
  local isId, F, rev = arg() == '1', arg(), arg() == 'desc'
  if isId then F = nil end
  total = fastCount(root, N)
  if total == nil then
    local ms = matches(root)
    total = #ms
    page = orderSubset(ms, F, rev, offset, take)
  elseif total > 0 and take > 0 and offset < total then
    -- Walking: about min(offset + take, total) · N / total members, each cut out in Lua and tested (WALK_WEIGHT).
    -- Listing: the candidates (a SINTER or SMEMBERS in Redis, cheap per member), then sorting the total matches.
    local walkCost = WALK_WEIGHT * math.min(offset + take, total) * N / total
    local e = est(root)
    if e ~= nil and e / 8 + total * math.log(total + 2) / LOG2 * 2 < walkCost then
      page = orderSubset(keep(root, gen(root), true), F, rev, offset, take)
    else
      page = pageByWalk(root, F, rev, offset, take, total, N)
    end
  end
else
  local ms = matches(root)
  total = #ms
  local consumed = 0
  -- Each segment of the order gets its share of the page.
  local function segment(hs, F, rev)
    if #page < take and consumed + #hs > offset then
      for _, h in ipairs(orderSubset(hs, F, rev, math.max(0, offset - consumed), take - #page)) do page[#page + 1] = h end
    end
    consumed = consumed + #hs
  end
  if order == 'list' then
    local matched, placed = {}, {}
    for _, h in ipairs(ms) do matched[h] = true end
    local isId, values = arg() == '1', {}
    for i = 1, tonumber(arg()) do values[i] = arg() end
    local idHandles = nil
    if isId then idHandles = chunked('HMGET', C .. 'i', values) end
    for i = 1, #values do
      if #page >= take then break end
      local listed
      if isId then listed = { idHandles[i] } else listed = redis.call('SMEMBERS', C .. 's:' .. values[i]) end
      local bucket = {}
      for _, h in ipairs(listed) do
        if h and matched[h] and not placed[h] then
          placed[h] = true
          bucket[#bucket + 1] = h
        end
      end
      segment(bucket, nil, false)
    end
    if #page < take then
      local rest = {}
      for _, h in ipairs(ms) do if not placed[h] then rest[#rest + 1] = h end end
      segment(rest, nil, false)
    end
  else
    local phrase, terms = readNeedle(), {}
    for i = 1, tonumber(arg()) do terms[i] = readNeedle() end
    local title, excerpt, content = arg(), arg(), arg()
    local thenIsId, thenF, thenRev = arg() == '1', arg(), arg() == 'desc'
    if thenIsId then thenF = nil end
    -- has(t, col, hs): the handles of hs whose column contains the needle, as a set: from the token index when it
    -- answers the needle exactly, otherwise from the stored text (read once per column and list).
    local texts = {}
    local function has(t, col, hs)
      local found = {}
      if t.term == '' or #hs == 0 then return found end
      if t.exact and indexed(t) then return postingHits(t, { col }, hs) end
      local read = texts[col]
      if not read or read.hs ~= hs then
        read = { hs = hs, text = chunked('HMGET', C .. 'x:' .. col, hs) }
        texts[col] = read
      end
      for i, h in ipairs(hs) do
        if contains(read.text[i], t.term) then found[h] = true end
      end
      return found
    end
    local ranks, rest = { {}, {}, {}, {}, {}, {} }, {}
    local phraseInTitle = has(phrase, title, ms)
    local termsInTitle = {}
    for i, term in ipairs(terms) do termsInTitle[i] = has(term, title, ms) end
    for _, h in ipairs(ms) do
      local r = nil
      if phraseInTitle[h] then r = 1
      elseif #terms > 0 then
        local all, any = true, false
        for i = 1, #terms do
          if termsInTitle[i][h] then any = true else all = false end
        end
        if all then r = 2 elseif any then r = 3 end
      end
      if r then table.insert(ranks[r], h) else rest[#rest + 1] = h end
    end
    if phrase.term ~= '' and #rest > 0 then
      local inExcerpt = has(phrase, excerpt, rest)
      local later = {}
      for _, h in ipairs(rest) do
        if inExcerpt[h] then table.insert(ranks[4], h) else later[#later + 1] = h end
      end
      local inContent = has(phrase, content, later)
      for _, h in ipairs(later) do
        if inContent[h] then table.insert(ranks[5], h) else table.insert(ranks[6], h) end
      end
    else
      for _, h in ipairs(rest) do table.insert(ranks[6], h) end
    end
    for r = 1, 6 do segment(ranks[r], thenF, thenRev) end
  end
end

local result = { total }
if #page > 0 then
  local oids = {}
  for i, h in ipairs(page) do
    oids[i] = knownOids[h]
    if not oids[i] then oids = oidsOf(page); break end
  end
  for i, doc in ipairs(chunked('HMGET', C .. 'd', oids)) do result[i + 1] = doc end
end
return result
`;

class Script {
  readonly sha: string;
  constructor(readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }
}

const COMMIT_SCRIPT = new Script(COMMIT);
const BULK_VOCABULARY_SCRIPT = new Script(BULK_VOCABULARY);
const PROMOTE_SCRIPT = new Script(PROMOTE);
const STAGE_SCRIPT = new Script(STAGE);
const RESERVE_SCRIPT = new Script(RESERVE);
const ADD_ONE_SCRIPT = new Script(ADD_ONE);
const QUERY_SCRIPT = new Script(QUERY);

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
  /** Parsed documents kept by recent use (default 20,000); see `parse` below. */
  parsedDocsKept?: number;
}

/** The build lease of staged generation G: `<prefix>gen:building:<G>`. */
export const buildLeaseKey = (prefix: Buffer, generation: number): Buffer => Buffer.concat([prefix, Buffer.from(`gen:building:${generation}`)]);

const staleCommit = (error: unknown): StaleCommitError | null => {
  if (!(error instanceof Error) || !error.message.startsWith('STALE ')) return null;
  const reason = error.message.startsWith('STALE fence') ? 'fence' : error.message.startsWith('STALE checkpoint') ? 'checkpoint' : 'generation';
  return new StaleCommitError(reason, error.message.slice(6));
};

/**
 * The key layout's version, stored in every checkpoint: a checkpoint of another layout reads as version -1, so
 * the projector rebuilds the projection into a new generation (2: text indexed by tokens instead of trigrams, and
 * C:k holding order members; 3: no posting sets or vocabulary entries for tokens under MIN_TOKEN_BYTES, empty texts
 * not stored in C:x; 4: index entries name their partition fields instead of listing their partition members).
 */
const LAYOUT = 4;

const checkpointJson = (prepared: PreparedCommit) => JSON.stringify({ ...prepared.checkpoint, layout: LAYOUT });

/** Checked before a commit is sent (a Lua error part-way would not roll back). */
function checkTokens(commit: Commit): void {
  const { generation, fence } = commit;
  if (generation !== undefined && !(Number.isSafeInteger(generation) && generation >= 0)) throw new RangeError('generation must be a non-negative integer');
  if (fence !== undefined && !Number.isSafeInteger(fence)) throw new RangeError('fence must be an integer');
  const expected = commit.expectedPosition;
  if (expected !== undefined && expected !== null && !(Number.isSafeInteger(expected) && expected >= 0)) throw new RangeError('expectedPosition must be null or a non-negative integer');
}

/** One projection's part of a COMMIT call. */
interface CommitSection {
  prepared: PreparedCommit;
  writes: readonly PreparedWrite[];
  /** The checkpoint's JSON, '' to leave it (a bulk commit's earlier steps). */
  checkpoint: string;
  generation?: number;
  fence?: number;
  expectedPosition?: number | null;
}

const PARSED_DOCS_KEPT = 20_000;
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

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

export function createRedisReadModel(options: RedisReadModelOptions): ReadModel {
  const { redis } = options;
  const prefix = cesu8(options.prefix);
  const checkpointsKey = Buffer.concat([prefix, Buffer.from('checkpoints')]);
  const metaKey = (suffix: string) => Buffer.concat([prefix, Buffer.from(suffix)]);
  const generationKey = (collection: string, generation: number) =>
    Buffer.concat([prefix, Buffer.from(generation === 0 ? 'c:' : `g${generation}:c:`), name(collection), COLON]);

  // Which generation each collection is served from: loaded once, reloaded after a switch (published by PROMOTE,
  // or made by this process) and after the subscriber reconnects. Keys are built once per collection and generation.
  let liveGenerations = new Map<string, number>();
  let loaded: Promise<void> | null = null;
  const keyCache = new Map<string, { generation: number; collection: Buffer; docs: Buffer }>();
  function refreshGenerations(): Promise<void> {
    const load = redis.hgetall(metaKey('gen:collections') as unknown as string).then((all) => {
      liveGenerations = new Map(Object.entries(all).map(([collection, generation]) => [collection, Number(generation)]));
    });
    // A failed load is retried by the next read rather than remembered.
    loaded = load.catch((error) => {
      loaded = null;
      throw error;
    });
    return loaded;
  }
  refreshGenerations().catch(() => undefined);
  const switches = metaKey('gen:switched');
  const { subscriber } = options;
  const onSwitch = (channel: Buffer) => {
    if (channel.equals(switches)) refreshGenerations().catch(() => undefined);
  };
  const onReady = () => refreshGenerations().catch(() => undefined);
  if (subscriber) {
    subscriber.on('messageBuffer', onSwitch);
    subscriber.on('ready', onReady);
    subscriber.subscribe(switches as unknown as string).catch(() => undefined);
  }

  async function keysOf(collection: string): Promise<{ collection: Buffer; docs: Buffer }> {
    await (loaded ?? refreshGenerations());
    const generation = liveGenerations.get(collection) ?? 0;
    let keys = keyCache.get(collection);
    if (keys?.generation !== generation) {
      const key = generationKey(collection, generation);
      keys = { generation, collection: key, docs: Buffer.concat([key, Buffer.from('d')]) };
      keyCache.set(collection, keys);
    }
    return keys;
  }
  const collectionKey = async (collection: string) => (await keysOf(collection)).collection;
  const docsKey = async (collection: string) => (await keysOf(collection)).docs;

  // Deleting a generation's keys walks the keyspace; deletions waiting at once share a walk (generationKeys.ts).
  const deleter = new GenerationKeyDeleter(redis, prefix, globEscape(prefix));
  const inGeneration = (collections: Iterable<string>, generation: number): CollectionGeneration[] =>
    [...collections].map((collection) => ({ collection: name(collection).toString('latin1'), generation }));

  const liveGeneration = async (projection: string) => Number((await redis.hget(metaKey('gen:live') as unknown as string, cesu8(projection) as unknown as string)) ?? 0);

  /** EVALSHA; after a SCRIPT FLUSH or a restart, one EVAL puts the script back in the cache. */
  async function run(script: Script, args: Token[], connection: Redis = redis): Promise<unknown> {
    try {
      return await connection.evalsha(script.sha, 0, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return connection.eval(script.source, 0, ...args);
    }
  }
  const reader = options.reader ?? redis;

  // Build leases of the generations this process is building (see buildLeaseKey), renewed every third of their life.
  const buildLeaseMs = options.buildLeaseMs ?? 30_000;
  const building = new Map<number, NodeJS.Timeout>();
  function keepBuilding(projection: string, generation: number): void {
    const key = buildLeaseKey(prefix, generation);
    const renew = () => {
      // XX: a lapsed lease is not taken back (a sweep may have un-staged the generation meanwhile).
      redis.set(key as unknown as string, cesu8(projection) as unknown as string, 'PX', buildLeaseMs, 'XX').then(
        (renewed) => {
          if (renewed === null) stopBuilding(generation);
        },
        () => {
          if (redis.status === 'end') stopBuilding(generation);
        },
      );
    };
    const timer = setInterval(renew, Math.max(50, Math.floor(buildLeaseMs / 3)));
    // A build under way does not keep the process alive on its own account.
    timer.unref();
    building.set(generation, timer);
  }
  function stopBuilding(generation: number): void {
    clearInterval(building.get(generation));
    building.delete(generation);
  }
  async function endBuild(generation: number): Promise<void> {
    stopBuilding(generation);
    await redis.del(buildLeaseKey(prefix, generation) as unknown as string);
  }

  /** COMMIT's arguments for the sections (see the script). */
  function commitArgs(
    sections: readonly CommitSection[],
    bulk: boolean,
    /** Told each text column's distinct tokens (a bulk commit adds their postings itself). */
    onTokens?: (write: PreparedWrite, column: string, tokens: string[]) => void,
  ): Token[] {
    const args: Token[] = [prefix, bulk ? '1' : '', String(sections.length)];
    const parts = new KeyParts();
    for (const { prepared, writes, checkpoint, generation, fence, expectedPosition } of sections) {
      args.push(
        cesu8(prepared.name),
        checkpoint,
        generation === undefined ? '' : String(generation),
        fence === undefined ? '' : String(fence),
        expectedPosition === undefined ? '' : expectedPosition === null ? '-' : String(expectedPosition),
        String(writes.length),
      );
    }
    for (const { writes } of sections) {
      for (const write of writes) {
        args.push(parts.name(write.collection), ord(write.id));
        if (write.json === undefined) {
          args.push('D');
          continue;
        }
        const { sort, sets, text } = write.entry;
        args.push('P', write.json, String(sort.size));
        for (const [field, key] of sort) args.push(parts.name(field), ord(key));
        let suffixes = 0;
        for (const values of sets.values()) suffixes += values.length;
        args.push(String(suffixes));
        for (const [field, values] of sets) for (const v of values) args.push(parts.setSuffix(field, v));
        args.push(String(text.size));
        for (const [column, value] of text) {
          const lowered = value.toLowerCase();
          const tokens = distinctTokens(lowered);
          onTokens?.(write, column, tokens);
          // A token never holds a space, so the script splits them again on spaces.
          args.push(parts.name(column), cesu8(lowered), cesu8(tokens.join(' ')));
        }
        args.push(String(write.entry.partitions.length));
        for (const field of write.entry.partitions) args.push(parts.name(field));
      }
    }
    return args;
  }

  async function runCommit(args: Token[]): Promise<unknown> {
    try {
      return await run(COMMIT_SCRIPT, args);
    } catch (error) {
      throw staleCommit(error) ?? error;
    }
  }

  /**
   * A rebuild's bulk commit into a staged generation (Commit.bulk), which nobody reads until PROMOTE, so it need not
   * be atomic. Documents the generation already holds go through COMMIT as in any commit (in steps of BULK_STEP):
   * their old entries must be unindexed. Documents new to it (all of them in a first flush) are written by
   * writeNewDocuments with plain variadic commands, the same keys and values COMMIT would write. The checkpoint
   * moves last. If the generation was replaced meanwhile (another rebuild staged one), what this commit wrote into
   * it is deleted, since nobody else will: a generation number is never reused.
   */
  async function bulkCommit(prepared: PreparedCommit, generation: number): Promise<void> {
    const held = await heldWrites(prepared.writes, generation);
    const fresh = prepared.writes.filter((write) => write.json !== undefined && !held.has(write));
    const known = prepared.writes.filter((write) => held.has(write));
    try {
      if (fresh.length > 0) await writeNewDocuments(prepared.name, fresh, generation);
      for (let from = 0; from < known.length; from += BULK_STEP) {
        await runCommit(commitArgs([{ prepared, writes: known.slice(from, from + BULK_STEP), checkpoint: '', generation }], false));
      }
      // Last, the checkpoint (and the check that the generation is still staged).
      await runCommit(commitArgs([{ prepared: { ...prepared, writes: [] }, writes: [], checkpoint: checkpointJson(prepared), generation }], false));
    } catch (error) {
      if (error instanceof StaleCommitError && error.reason === 'generation') {
        await deleter.delete(inGeneration(new Set(prepared.writes.map((write) => write.collection)), generation)).catch(() => undefined);
      }
      throw error;
    }
  }

  /** The writes whose document the generation already holds (one HMGET of C:i per collection and 10,000 ids). */
  async function heldWrites(writes: readonly PreparedWrite[], generation: number): Promise<Set<PreparedWrite>> {
    const held = new Set<PreparedWrite>();
    for (const [collection, own] of groupBy(writes, (write) => write.collection)) {
      const key = Buffer.concat([generationKey(collection, generation), Buffer.from('i')]);
      if ((await redis.hlen(key as unknown as string)) === 0) continue;
      for (let from = 0; from < own.length; from += 10_000) {
        const part = own.slice(from, from + 10_000);
        const handles = await redis.hmget(key as unknown as string, ...(part.map((write) => ord(write.id)) as unknown as string[]));
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
  async function writeNewDocuments(projection: string, writes: readonly PreparedWrite[], generation: number): Promise<void> {
    const byCollection = groupBy(writes, (write) => write.collection);
    const reserve: Token[] = [prefix, cesu8(projection), String(generation)];
    for (const [collection, own] of byCollection) reserve.push(generationKey(collection, generation), String(own.length));
    let last: number[];
    try {
      last = (await run(RESERVE_SCRIPT, reserve)) as number[];
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
      const base = generationKey(collection, generation);
      const key = (...rest: (Buffer | string)[]) => Buffer.concat([base, ...rest.map((r) => (typeof r === 'string' ? Buffer.from(r) : r))]);
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
            batch.command(sorted, 'ZADD', sorted, perDocument * 2).piece('0').piecesThen(member, h);
            batch.command(members, 'HSET', members, perDocument * 2).integer(h).piecesThen(member, h);
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
            batch.command(texts, 'HSET', texts, Math.min((lowered.length + 16) * chunk.length, 1 << 22) + perDocument).integer(h).piece(SURROGATE.test(lowered) ? cesu8(lowered) : lowered);
            let byToken = postings.get(col);
            if (byToken === undefined) postings.set(col, (byToken = new Map()));
            gatherTokens(lowered, h, byToken);
          });
          // Partition orders (see COMMIT's partitionOrders): per value of a partition field, in C:q:<field>:id and in
          // C:q:<field>:<key> per sort key; the entry only names the fields.
          const partitions: Buffer[] = [];
          for (const field of write.entry.partitions) {
            partitions.push(parts.name(field));
            for (const value of sets.get(field) ?? []) {
              const pv = ord(value);
              const byId = keyOf('q:', parts.partitionSuffix(field, 'id'));
              batch.command(byId, 'ZADD', byId, perDocument * 2).piece('0').piecesThen([pv, oid], h);
              for (let i = 0; i < sortNames.length; i++) {
                const partition = keyOf('q:', parts.partitionSuffix(field, sortNames[i]!));
                batch.command(partition, 'ZADD', partition, perDocument * 2).piece('0').piecesThen([pv, sortOrds[i]!, oid], h);
              }
            }
          }
          // The entry COMMIT reads to unindex the document later (the table cmsgpack would pack).
          entryList.push([h, packEntry([['P', partitions], ['t', t], ['s', s], ['x', x]])]);
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
            const posting = own.command(token, 'SADD', [column.postings, SURROGATE.test(token) ? cesu8(token) : token], 8 * handles.length + 64);
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
          vocabulary.push(postings, key('v:', col), key('y:', col, COLON), cesu8(list.slice(from, from + BULK_MEMBERS).join(' ')));
        }
      }
    }
    await Promise.all(inFlight);
    // Then the tokens that gained postings join their column's vocabulary (after the postings, as in COMMIT).
    for (let i = 0; i < vocabulary.length; i += 4) await run(BULK_VOCABULARY_SCRIPT, vocabulary.slice(i, i + 4));
  }

  // The same stored JSON gives back the same frozen document (as the memory read model hands out its frozen
  // documents), so what is derived from a document can be cached by its identity (the presented items), and
  // hot documents are not parsed again on every read. Bounded, least recently used dropped first.
  // Kept under a fingerprint of the JSON (its length, head and tail) and checked against the whole JSON: hashing a
  // ~3 KB reply string as a Map key cost more than the rest of a hit; comparing two strings is a memcmp. Two JSONs
  // with one fingerprint (versions of a document of the same length) only replace each other.
  // Once full, a document new to it is kept only when read again within the admission window: at 100,000 posts read
  // at random, keeping every one pushed another out, and each one pushed out (its JSON and its objects) was garbage
  // in the old generation. A document read once is parsed, used and left to the young generation.
  const parsedDocsKept = options.parsedDocsKept ?? PARSED_DOCS_KEPT;
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
        if (!parsedOnce.admits(key)) return doc;
        parsedDocs.delete(parsedDocs.keys().next().value!);
      }
      kept = { json, doc };
    }
    parsedDocs.set(key, kept);
    return kept.doc;
  };

  /** The partition hint QUERY tries first (see LUA_PARTITION_PAGE), then its count; just '0' without one. */
  function partitionHint(plan: QueryPlan): Token[] {
    const shape = partitionShape(plan);
    if (shape === null) return ['0'];
    const b = shape.bounds;
    const hint: Token[] = [
      setSuffix(shape.field, shape.value),
      partitionSuffix(shape.field, 'id'),
      partitionSuffix(shape.field, shape.order),
      ord(shape.value),
      shape.order === 'id' ? '1' : '0',
      shape.direction,
      b?.lo === undefined ? '' : ord(b.lo),
      b?.loIncl ? '1' : '0',
      b?.hi === undefined ? '' : ord(b.hi),
      b?.hiIncl ? '1' : '0',
    ];
    return [...hint, String(hint.length)];
  }

  return {
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
      const filter = compileGroup(
        'and',
        plan.filters.map((f) => compileFilter(f)),
      );
      const args: Token[] = [
        await collectionKey(collection),
        String(plan.offset),
        String(plan.limit ?? -1),
        ...filter.tokens,
        ...compileOrder(plan.order),
        ...partitionHint(plan),
      ];
      const reply = (await run(QUERY_SCRIPT, args, reader)) as [number, ...string[]];
      const [total, ...docs] = reply;
      return { items: docs.map((d) => parse(d)!), total };
    },

    async commit(commit) {
      const prepared = prepareCommit(commit, false);
      const { generation, fence, expectedPosition } = commit;
      checkTokens(commit);
      if (commit.alongside !== undefined && commit.alongside.length > 0) {
        if (commit.bulk === true) throw new RangeError('a bulk commit goes alone');
        const sections: CommitSection[] = [{ prepared, writes: prepared.writes, checkpoint: checkpointJson(prepared), generation, fence, expectedPosition }];
        for (const other of commit.alongside) {
          if (other.bulk === true || (other.alongside?.length ?? 0) > 0) throw new RangeError('commits alongside go without bulk or commits of their own');
          const own = prepareCommit(other, false);
          checkTokens(other);
          sections.push({ prepared: own, writes: own.writes, checkpoint: checkpointJson(own), generation: other.generation, fence: other.fence, expectedPosition: other.expectedPosition });
        }
        await runCommit(commitArgs(sections, false));
        return;
      }
      if (commit.bulk === true && expectedPosition !== undefined) throw new RangeError('a bulk commit expects no checkpoint position');
      if (commit.bulk === true && generation !== undefined && prepared.writes.length > 0 && distinctWrites(prepared) && (await liveGeneration(prepared.name)) !== generation) {
        await bulkCommit(prepared, generation);
        return;
      }
      await runCommit(commitArgs([{ prepared, writes: prepared.writes, checkpoint: checkpointJson(prepared), generation, fence, expectedPosition }], false));
    },

    commitsAlongside: true,

    async checkpoint(checkpointName): Promise<Checkpoint | null> {
      const raw = await redis.hget(checkpointsKey, cesu8(checkpointName));
      if (raw === null) return null;
      const { position, version, layout } = JSON.parse(raw) as Checkpoint & { layout?: number };
      // Documents indexed in an older key layout read as older than any projection version: they are rebuilt.
      return { position, version: layout === LAYOUT ? version : -1 };
    },

    async reset(checkpointName, collections) {
      // The checkpoint goes first: a reset cut short then reads as "no checkpoint", which means rebuild.
      await redis.hdel(checkpointsKey, cesu8(checkpointName));
      const generation = await liveGeneration(checkpointName);
      await deleter.delete(inGeneration(collections, generation));
    },

    generations: {
      liveGeneration,

      async getManyIn(generation, collection, ids) {
        const wanted = ids.map((id) => (isScalar(id) ? ord(id) : null));
        const fields = wanted.filter((f): f is Buffer => f !== null);
        if (fields.length === 0) return ids.map(() => null);
        // On the reads' connection: the projections of a batch fetch their documents at once, and an auto-pipelined
        // reader sends those fetches together (commits are awaited before the next batch folds, so they are seen).
        const found = await reader.hmget(Buffer.concat([generationKey(collection, generation), Buffer.from('d')]), ...fields);
        let i = 0;
        return wanted.map((f) => (f === null ? null : parse(found[i++] ?? null)));
      },

      async stageGeneration(projection, collections) {
        // Staged with its build lease (buildLeaseKey), so a sweep never takes it for abandoned.
        const [staged, previous] = (await run(STAGE_SCRIPT, [prefix, cesu8(projection), String(buildLeaseMs)])) as [number, string | null];
        const generation = Number(staged);
        keepBuilding(projection, generation);
        // An abandoned build (its builder died) is replaced: its keys are nobody's. The new generation has none.
        if (previous) {
          await endBuild(Number(previous));
          await deleter.delete(inGeneration(collections, Number(previous)));
        }
        return generation;
      },

      async stagedCheckpoint(projection, generation) {
        const [staged, raw] = await Promise.all([
          redis.hget(metaKey('gen:staged') as unknown as string, cesu8(projection) as unknown as string),
          redis.hget(metaKey('gen:staged-checkpoints') as unknown as string, cesu8(projection) as unknown as string),
        ]);
        if (staged !== String(generation) || raw === null) return null;
        const { position, version } = JSON.parse(raw) as Checkpoint;
        return { position, version };
      },

      async promote(projection, generation, collections) {
        let reply: unknown;
        try {
          reply = await run(PROMOTE_SCRIPT, [prefix, cesu8(projection), String(generation), ...collections.map(cesu8)]);
        } catch (error) {
          throw staleCommit(error) ?? error;
        }
        if (reply === 'behind') return 'behind';
        // Switched: a lease left behind would only lapse.
        await endBuild(generation).catch(() => undefined);
        await refreshGenerations();
        return { retired: Number(reply) };
      },

      async abandonGeneration(_projection, generation) {
        // Its keys are left for a sweep, which takes the generation for abandoned once its lease is gone.
        await endBuild(generation);
      },

      async dropGenerations(retired) {
        await refreshGenerations();
        for (const { collections, generation } of retired) {
          for (const collection of collections) {
            if ((liveGenerations.get(collection) ?? 0) === generation) throw new Error(`generation ${generation} of ${collection} is live`);
          }
        }
        // One walk of the keyspace for them all.
        await deleter.delete(retired.flatMap(({ collections, generation }) => inGeneration(collections, generation)));
        if (retired.length > 0) await redis.hdel(metaKey('gen:retired') as unknown as string, ...retired.map(({ generation }) => String(generation)));
      },
    },

    // The clients belong to the caller (they may serve other adapters), so closing leaves them connected.
    async close() {
      for (const generation of [...building.keys()]) stopBuilding(generation);
      if (!subscriber) return;
      subscriber.off('messageBuffer', onSwitch).off('ready', onReady);
      // Only on a live connection: a command queued on one that is down would wait for a reconnection that closing
      // the connection then cancels without answering it.
      if (subscriber.status === 'ready') await subscriber.unsubscribe(switches as unknown as string).catch(() => undefined);
    },
  };
}
