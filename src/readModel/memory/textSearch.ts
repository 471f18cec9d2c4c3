/**
 * Text search over a collection's text arena: which rows hold search terms in which columns (one scan per filter,
 * its matches kept until the next write), and the matcher a stored text column is tested with.
 */
import type { Collection } from './collection';
import type { Row } from './row';

const ASCII = /^[\x00-\x7f]*$/;
const ASCII_LETTER = /[a-z]/;
/** A lone surrogate: UTF-8 cannot hold it. */
export const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Whether a stored text column contains a search term (lowercased), as `lowercased column includes term`. ASCII
 * columns are stored as they are, others lowercased (most sites' text is ASCII, and an ASCII column kept as it is
 * can stand for the document's own field: see Layout.elided). A non-ASCII term cannot occur in a lowercased ASCII
 * column, and occurs in a lowercased one exactly where `includes` finds it. An ASCII term with letters is matched
 * by a case-insensitive RegExp: without the `u` flag it folds ASCII letters only (no non-ASCII character folds to
 * an ASCII one), so in an ASCII column it matches where the lowercased column contains the term, and in a
 * lowercased column (whose ASCII letters are all lowercase) exactly where `includes` does.
 */
export function textMatcher(term: string): (text: string) => boolean {
  if (ASCII.test(term) && ASCII_LETTER.test(term)) {
    const pattern = new RegExp(escapeRegExp(term), 'i');
    return (text) => pattern.test(text);
  }
  // No letters (case cannot matter) or not ASCII (see above).
  return (text) => text.includes(term);
}

function escapeRegExp(term: string): string {
  return term.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/**
 * Per term (a search term, lowercased), the rows with it in one of `columns`: one pass over the text arena's
 * chunks, each hit mapped back to its record (a cursor moving forward with the hits) and column. An ASCII term
 * with letters is found by a case-insensitive RegExp over the bytes read as Latin-1 (an ASCII term matches ASCII
 * bytes only, so this finds exactly what `textMatcher` finds in the decoded column); any other well-formed term
 * by its UTF-8 bytes (UTF-8 is self-synchronising, so a byte match is a character match); a term with a lone
 * surrogate by decoding every column. Rows with loose text are tested as strings.
 */
function rowsWithTerms(collection: Collection, terms: readonly string[], columns: readonly string[]): Set<Row>[] {
  const wanted = new Set(columns);
  const found = terms.map(() => new Set<Row>());
  const scanned: number[] = [];
  terms.forEach((term, t) => {
    if (!LONE_SURROGATE.test(term)) {
      scanned.push(t);
      return;
    }
    const has = textMatcher(term);
    for (const row of collection.rows.values())
      if (columns.some((c) => has(collection.textOf(row, c)))) found[t]!.add(row);
  });
  if (scanned.length > 0) {
    const patterns = scanned.map((t) => {
      const term = terms[t]!;
      return ASCII.test(term) && ASCII_LETTER.test(term)
        ? new RegExp(escapeRegExp(term), 'gi')
        : Buffer.from(term, 'utf8');
    });
    const lengths = scanned.map((t) => Buffer.byteLength(terms[t]!, 'utf8'));
    for (const chunk of collection.texts.chunksForScan()) {
      const { bytes, used, starts, lengths: sizes, owners } = chunk;
      for (let k = 0; k < scanned.length; k++) {
        const pattern = patterns[k]!;
        const into = found[scanned[k]!]!;
        const termLength = lengths[k]!;
        const find =
          pattern instanceof RegExp
            ? caselessFinder(bytes, used, pattern, termLength)
            : (from: number) => bytes.indexOf(pattern, from);
        let record = 0;
        let p = find(0);
        while (p >= 0 && p + termLength <= used) {
          // The record holding p: the cursor only moves forward, as hits do.
          while (record + 1 < starts.length && starts[record + 1]! <= p) record++;
          let next = p + 1;
          const start = starts[record]!;
          if (!chunk.isLive(record)) next = start + sizes[record]!;
          else if (start <= p) {
            const row = collection.slots[owners[record]!]!;
            const names = row.layout.textNames;
            let at = start + 4 * names.length;
            if (p < at) next = at;
            else {
              for (let i = 0; i < names.length; i++) {
                const end = at + bytes.readUInt32LE(start + 4 * i);
                if (p < end) {
                  if (p + termLength <= end && wanted.has(names[i]!)) {
                    into.add(row);
                    // Found in this row: on to the next record.
                    next = start + sizes[record]!;
                  }
                  break;
                }
                at = end;
              }
            }
          }
          if (next >= used) break;
          p = find(next);
        }
      }
    }
  }
  if (collection.looseText.size > 0) {
    terms.forEach((term, t) => {
      const has = textMatcher(term);
      for (const [row, texts] of collection.looseText)
        if (row.layout.textNames.some((c, i) => wanted.has(c) && has(texts[i] ?? ''))) found[t]!.add(row);
    });
  }
  return found;
}

/**
 * The rows matching a text filter (its fields, and its include and exclude terms as `searchTerms` makes them), from
 * the collection's cache of recent text matches (Collection.textMatches) or found now and kept there.
 */
export function rowsMatchingText(
  collection: Collection,
  fields: string[],
  includes: string[],
  excludes: string[],
): Set<Row> {
  // No trigram index here: trigram sets of whole post bodies would cost far more memory than the
  // documents. One scan of the text arena per term finds the matches, kept until the next write.
  const key = JSON.stringify([fields, includes, excludes]);
  const cache = collection.textMatches;
  let found = cache.get(key);
  if (found === undefined) {
    // One scan for every term, included or excluded.
    const withTerms = rowsWithTerms(collection, [...includes, ...excludes], fields);
    let rows: Set<Row> | undefined;
    includes.forEach((_, i) => {
      const withTerm = withTerms[i]!;
      if (rows === undefined) rows = withTerm;
      else for (const row of rows) if (!withTerm.has(row)) rows.delete(row);
    });
    found = rows ?? new Set(collection.rows.values());
    for (let i = includes.length; i < withTerms.length; i++) for (const row of withTerms[i]!) found.delete(row);
    const kept = collection.textMatchesKept;
    if (cache.size >= kept) cache.delete(cache.keys().next().value!);
    if (kept > 0) cache.set(key, found);
  }
  return found;
}

/** Bytes of a chunk read as one Latin-1 string at a time by a caseless search (see caselessFinder). */
export const SCAN_WINDOW = 64 * 1024;

/**
 * Finds a caseless ASCII term (`pattern`, global) in a chunk's bytes read as Latin-1, a window at a time. Reading a
 * whole 8 MB chunk as one string made Node copy it into memory from malloc (an external string, above ~1 MB), and
 * glibc kept those blocks after they were freed: one search over 100,000 posts grew the process by ~100 MB for
 * good. Windows overlap by the term's length less one byte, so a match is always whole in the window it starts in.
 */
export function caselessFinder(
  bytes: Buffer,
  used: number,
  pattern: RegExp,
  termLength: number,
): (from: number) => number {
  let windowStart = -1;
  let text = '';
  return (from) => {
    while (from < used) {
      if (windowStart < 0 || from < windowStart || from >= windowStart + SCAN_WINDOW) {
        windowStart = from;
        text = bytes.toString('latin1', from, Math.min(used, from + SCAN_WINDOW + termLength - 1));
      }
      pattern.lastIndex = from - windowStart;
      const match = pattern.exec(text);
      if (match !== null && match.index < SCAN_WINDOW) return windowStart + match.index;
      from = windowStart + SCAN_WINDOW;
    }
    return -1;
  };
}
