/** Words: the leading words of an excerpt, and word counts. */

import { stripAllTags } from './contentFilters';

/** Space, \n, \r or \t: what separates words for excerpts and word counts. */
function isWordBreak(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

/**
 * The first `limit` words of `text` (split on spaces, tabs and newlines, empty pieces dropped) joined by single
 * spaces, then `more` if another word follows; the scan stops at that word. Words already one space apart are
 * taken as one slice of `text` (most text is written so): no string per word, no array to join.
 */
export function leadingWordsJoined(text: string, limit: number, more: string): string {
  const n = text.length;
  const leading = singleSpacedWordsEnd(text, limit);
  if (leading >= 0) {
    let next = leading;
    while (next < n && isWordBreak(text.charCodeAt(next))) next++;
    return next < n ? text.slice(0, leading) + more : text.slice(0, leading);
  }
  let joined = '';
  // The current run of words one space apart: from runStart to the end of its last word (-1: none yet).
  let runStart = -1;
  let count = 0;
  let i = 0;
  for (;;) {
    const gap = i;
    while (i < n && isWordBreak(text.charCodeAt(i))) i++;
    if (i >= n) return runStart < 0 ? joined : joined + text.slice(runStart, gap);
    if (count === limit) return (runStart < 0 ? joined : joined + text.slice(runStart, gap)) + more;
    if (runStart < 0) runStart = i;
    else if (i - gap !== 1 || text.charCodeAt(gap) !== 32) {
      joined += `${text.slice(runStart, gap)} `;
      runStart = i;
    }
    while (i < n && !isWordBreak(text.charCodeAt(i))) i++;
    count++;
  }
}

const singleSpacedWords = new Map<number, RegExp>();

/**
 * Where the first `limit` words end when the text starts with them one space apart (what an excerpt's words
 * almost always are), or -1: one regular-expression match, about four times as fast as a walk over the characters.
 */
export function singleSpacedWordsEnd(text: string, limit: number): number {
  if (limit < 1) return -1;
  let re = singleSpacedWords.get(limit);
  if (re === undefined) {
    if (singleSpacedWords.size >= 8) singleSpacedWords.clear();
    singleSpacedWords.set(limit, (re = new RegExp(`(?:[^ \\t\\n\\r]+ ){${limit - 1}}[^ \\t\\n\\r]+`, 'y')));
  }
  re.lastIndex = 0;
  return re.test(text) ? re.lastIndex : -1;
}

/** The number of words in `html` once tags are removed (for projections, e.g. reading time). */
export function wordCount(html: string): number {
  const text = stripAllTags(html);
  let count = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const wordChar = !isWordBreak(text.charCodeAt(i));
    if (wordChar && !inWord) count++;
    inWord = wordChar;
  }
  return count;
}
