/**
 * The text index's tokens, as the client cuts them: for COMMIT's arguments, for a bulk commit's posting sets, and
 * for a search term's probe and trigrams (the "needle" QUERY takes). See readModel.ts's header for how text is found.
 */
import { cesu8 } from './keys';
import type { Token } from './scripts';

/**
 * Vocabulary tokens longer than this many bytes are listed once, in C:y:<column>:long, instead of under each of
 * their trigrams (each listing holds the whole token, so the trigram sets of one long token grow with its square).
 */
export const LONG_TOKEN_BYTES = 64;
/** The suffix of that set's key: four bytes, so never a trigram's. */
export const LONG_TOKENS = 'long';

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
 * 0x80-0xFF (an ASCII byte is always a whole character), which is how the scripts cut stored text (LUA_TOKEN in lua/vocabulary.lua).
 * A term made of token characters only occurs in a text exactly when it occurs in one of the text's tokens.
 */
const TOKEN = /[0-9A-Za-z\u0080-\uffff]+/g;

/** Token characters (TOKEN) by UTF-16 code unit. */
const isTokenUnit = (c: number) =>
  (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || c >= 0x80;

/**
 * Tokens shorter than this many bytes (CESU-8) have no posting set and are not in the vocabulary: a search finds
 * posting sets only through the trigrams of a probe of at least this many bytes (needle), which no shorter token can
 * contain, so theirs were never read (a term without such a probe is checked on the stored text). Per post they were
 * about a third of the posting memberships ("a", "of", "p", "wp", digits).
 */
export const MIN_TOKEN_BYTES = 3;

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
export type ChunkTokens = Map<number, { token: string; handles: number[] }[]>;

/**
 * Adds handle `h` to the postings of every token of `lowered` (cut as TOKEN cuts it), without a string per
 * occurrence: a token is looked up by a hash of its code units and compared in place; only one new to the chunk is
 * sliced out. (Matching TOKEN and looking each occurrence up by string was half the client's time in a rebuild.)
 */
export function gatherTokens(lowered: string, h: number, into: ChunkTokens): void {
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
    else
      for (const entry of bucket)
        if (entry.token.length === length && lowered.startsWith(entry.token, start)) found = entry;
    if (found === undefined) bucket.push({ token: lowered.slice(start, i), handles: [h] });
    else if (found.handles[found.handles.length - 1] !== h) found.handles.push(h);
  }
}

/** A lowercased column's distinct indexed tokens (MIN_TOKEN_BYTES), for COMMIT. */
export function distinctTokens(lowered: string): string[] {
  return [...new Set(lowered.match(TOKEN))].filter((token) => isIndexedToken(token, 0, token.length));
}

/**
 * A search term as the scripts take it (a "needle"): the lowercased term; its probe, the longest of its token
 * pieces if that has at least three bytes ('' otherwise), whose trigrams find the vocabulary tokens containing it;
 * and whether the probe is the whole term, in which case the documents whose column holds such a token are
 * exactly those whose column contains the term. Otherwise the probe only narrows and the stored text decides.
 */
export function needle(lowered: string): Token[] {
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
