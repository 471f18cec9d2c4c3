/**
 * Post slugs the way WordPress 6.1 makes them (`sanitize_title` in the "save" context, then
 * `wp_unique_post_slug`), reimplemented from observed input → output behaviour.
 *
 * Pipeline of sanitizeSlug, in the order WordPress applies the steps (the order matters: accents are
 * transliterated before lower-casing, so "ẞ" survives as "%c3%9f" while "ß" becomes "s"):
 *   transliterate accents → strip tags → keep %XX octets, drop stray "%" → lower-case →
 *   percent-encode non-ASCII (200 character budget) → typographic characters to "-" or nothing →
 *   drop entities → "." to "-" → keep [%a-z0-9 _-] → spaces to "-" → collapse and trim "-".
 */

/** WordPress stores post_name in a 200 character column and truncates suffixed slugs to fit. */
export const MAX_SLUG_LENGTH = 200;

// Letters with no canonical decomposition that WordPress still transliterates (default, non-German locale).
const SPECIAL_LETTERS: Readonly<Record<string, string>> = {
  ª: 'a',
  º: 'o',
  Æ: 'AE',
  æ: 'ae',
  Ð: 'D',
  ð: 'd',
  Ø: 'O',
  ø: 'o',
  Þ: 'TH',
  þ: 'th',
  ß: 's',
  Đ: 'D',
  đ: 'd',
  Ħ: 'H',
  ħ: 'h',
  ı: 'i',
  Ĳ: 'IJ',
  ĳ: 'ij',
  ĸ: 'k',
  Ŀ: 'L',
  ŀ: 'l',
  Ł: 'L',
  ł: 'l',
  ŉ: 'n',
  Ŋ: 'N',
  ŋ: 'n',
  Œ: 'OE',
  œ: 'oe',
  Ŧ: 'T',
  ŧ: 't',
  ſ: 's',
  ɑ: 'a',
  '€': 'E',
  '£': '',
};

// Code point ranges whose letters lose their diacritics (decompose, drop the marks). Outside these ranges
// WordPress leaves letters alone (e.g. Greek, Cyrillic, most of Latin Extended Additional), and they end up
// percent-encoded. U+00D7 × and U+00F7 ÷ fall inside the first range but have no decomposition.
const STRIP_MARK_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x00c0, 0x017f], // Latin-1 Supplement letters, Latin Extended-A
  [0x01a0, 0x01a1], // Ơ ơ
  [0x01af, 0x01b0], // Ư ư
  [0x01cd, 0x01dc], // pinyin tone letters Ǎ … ǜ
  [0x0218, 0x021b], // Ș ș Ț ț
  [0x1ea0, 0x1ef9], // Vietnamese
];

const COMBINING_MARKS = /\p{M}/gu;

function stripsMarks(cp: number): boolean {
  for (const [lo, hi] of STRIP_MARK_RANGES) if (cp >= lo && cp <= hi) return true;
  return false;
}

/** WordPress's `remove_accents` for the default (English) locale: NFC first, then per-letter transliteration. */
export function removeAccents(input: string): string {
  if (!/[^\x00-\x7f]/.test(input)) return input;
  let out = '';
  for (const ch of input.normalize('NFC')) {
    const special = SPECIAL_LETTERS[ch];
    if (special !== undefined) out += special;
    else if (stripsMarks(ch.codePointAt(0)!)) out += ch.normalize('NFD').replace(COMBINING_MARKS, '');
    else out += ch;
  }
  return out;
}

/**
 * PHP-`strip_tags`-like removal: "<" followed by whitespace is text; a tag runs to the next ">" outside
 * quotes; comments run to "-->"; an unterminated tag swallows the rest of the string.
 */
export function stripTagsLikePhp(input: string): string {
  let lt = input.indexOf('<');
  if (lt < 0) return input;
  // Text is copied a run at a time, between tags (a character at a time cost more than the rest of it).
  let out = '';
  let from = 0;
  const n = input.length;
  while (lt >= 0) {
    if (isTagBreakingSpace(input.charCodeAt(lt + 1))) {
      lt = input.indexOf('<', lt + 1); // "a < b": not a tag
      continue;
    }
    out += input.slice(from, lt);
    let next: number;
    if (input.startsWith('<!--', lt)) {
      const end = input.indexOf('-->', lt + 4);
      next = end < 0 ? n : end + 3;
    } else {
      let quote = 0;
      let j = lt + 1;
      for (; j < n; j++) {
        const d = input.charCodeAt(j);
        if (quote !== 0) {
          if (d === quote) quote = 0;
        } else if (d === 34 || d === 39)
          quote = d; // " or '
        else if (d === 62) break; // >
      }
      next = j + 1;
    }
    from = next;
    lt = next >= n ? -1 : input.indexOf('<', next);
  }
  return from >= n ? out : out + input.slice(from);
}

/** Space, \t, \n, \r, \v or \f: after "<", the "<" is text. (NaN, past the end, is none of them.) */
function isTagBreakingSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13 || c === 11 || c === 12;
}

const utf8 = new TextEncoder();

function hex2(byte: number): string {
  return (byte < 16 ? '0' : '') + byte.toString(16);
}

/**
 * Percent-encodes every non-ASCII character as lowercase UTF-8 octets, stopping (not cutting a character)
 * once the output would exceed `budget` characters (0: unlimited).
 */
function encodeNonAscii(input: string, budget: number): string {
  let out = '';
  for (const ch of input) {
    const cp = ch.codePointAt(0)!;
    let piece: string;
    if (cp < 0x80) piece = ch;
    else {
      piece = '';
      for (const b of utf8.encode(ch)) piece += '%' + hex2(b);
    }
    if (budget && out.length + piece.length > budget) break;
    out += piece;
  }
  return out;
}

// Characters WordPress turns into hyphens, then characters it removes, both matched on the encoded string
// (so literal "%e2%80%93" typed by a user behaves like "–"). Applied one after another, like PHP str_replace.
const TO_HYPHEN = [
  '%c2%a0',
  '%e2%80%93',
  '%e2%80%94',
  '&nbsp;',
  '&#160;',
  '&ndash;',
  '&#8211;',
  '&mdash;',
  '&#8212;',
  '/',
];
const REMOVED = [
  '%c2%ad', // soft hyphen
  '%c2%a1',
  '%c2%bf', // ¡ ¿
  '%c2%ab',
  '%c2%bb',
  '%e2%80%b9',
  '%e2%80%ba', // « » ‹ ›
  '%e2%80%98',
  '%e2%80%99',
  '%e2%80%9c',
  '%e2%80%9d',
  '%e2%80%9a',
  '%e2%80%9b',
  '%e2%80%9e',
  '%e2%80%9f', // curly quotes
  '%e2%80%a2', // •
  '%c2%a9',
  '%c2%ae',
  '%c2%b0',
  '%e2%80%a6',
  '%e2%84%a2', // © ® ° … ™
  '%c2%b4',
  '%cb%8a',
  '%cc%81',
  '%cd%81', // acute accents
  '%cc%80',
  '%cc%84',
  '%cc%8c', // grave, macron, caron
  '%e2%80%8b',
  '%e2%80%8c',
  '%e2%80%8d',
  '%e2%80%8e',
  '%e2%80%8f', // zero-width and direction marks
  '%e2%80%aa',
  '%e2%80%ab',
  '%e2%80%ac',
  '%e2%80%ad',
  '%e2%80%ae', // bidi embeddings
  '%ef%bb%bf', // BOM
];

function replaceAll(s: string, search: string, replacement: string): string {
  return s.includes(search) ? s.split(search).join(replacement) : s;
}

/**
 * WordPress's slug sanitisation (`sanitize_title`, save context, default locale).
 * "tęst-acceńted-chäræcters" → "test-accented-charaecters"; "Ελλάδα" → "%ce%b5%ce%bb…"; "" stays "".
 */
export function sanitizeSlug(input: string): string {
  let s = removeAccents(input);
  s = stripTagsLikePhp(s);
  // Keep well-formed %XX octets, drop every other "%". The marker form is what WordPress uses internally,
  // so a literal "---41---" in a title also becomes "%41" — observed behaviour, kept on purpose.
  if (s.includes('%')) {
    s = s
      .replace(/%([0-9a-fA-F]{2})/g, '---$1---')
      .replace(/%/g, '')
      .replace(/---([0-9a-fA-F]{2})---/g, '%$1');
  } else if (s.includes('---')) {
    s = s.replace(/---([0-9a-fA-F]{2})---/g, '%$1');
  }
  // Per-character lower-casing (no final-sigma context rule, like mb_strtolower), then encode.
  let lowered = '';
  for (const ch of s) lowered += ch.toLowerCase();
  s = encodeNonAscii(lowered, MAX_SLUG_LENGTH);
  for (const t of TO_HYPHEN) s = replaceAll(s, t, '-');
  for (const t of REMOVED) s = replaceAll(s, t, '');
  s = replaceAll(s, '%c3%97', 'x'); // ×
  s = s.replace(/&.+?;/g, '');
  s = s.replace(/\./g, '-');
  s = s.replace(/[^%a-z0-9 _-]/g, '');
  s = s.replace(/\s+/g, '-');
  s = s.replace(/-+/g, '-');
  return s.replace(/^-+|-+$/g, '');
}

/** Bytes of a slug with its %XX octets decoded (PHP urldecode, which also maps "+" to a space). */
function percentDecodeBytes(slug: string): number[] {
  const bytes: number[] = [];
  for (let i = 0; i < slug.length; i++) {
    const c = slug[i]!;
    if (c === '%' && /^[0-9a-fA-F]{2}$/.test(slug.slice(i + 1, i + 3))) {
      bytes.push(parseInt(slug.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (c === '+') bytes.push(0x20);
    else for (const b of utf8.encode(c)) bytes.push(b);
  }
  return bytes;
}

const URL_SAFE_ASCII = /[A-Za-z0-9_.~-]/;

/** Re-encodes decoded bytes within `length` characters: ASCII RFC 3986 style (uppercase hex), others lowercase. */
function encodeBytesWithin(bytes: number[], length: number): string {
  let out = '';
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    let piece: string;
    let width: number;
    if (b < 0x80) {
      const ch = String.fromCharCode(b);
      piece = URL_SAFE_ASCII.test(ch) ? ch : '%' + b.toString(16).toUpperCase().padStart(2, '0');
      width = 1;
    } else {
      width = b < 0xe0 ? 2 : b < 0xf0 ? 3 : 4;
      if (i + width > bytes.length) break; // incomplete trailing sequence is dropped
      piece = '';
      for (let k = 0; k < width; k++) piece += '%' + hex2(bytes[i + k]!);
    }
    if (out.length + piece.length > length) break;
    out += piece;
    i += width;
  }
  return out;
}

/**
 * Shortens a slug to at most `length` characters without splitting a percent-encoded character, then drops
 * trailing hyphens (WordPress drops them even when nothing was cut).
 */
export function truncateSlug(slug: string, length: number): string {
  let s = slug;
  if (s.length > length) {
    // Nothing to decode: a plain cut. Otherwise re-encode the decoded bytes within the budget.
    const plain = !/%[0-9a-fA-F]{2}/.test(s) && !s.includes('+');
    s = plain ? s.slice(0, length) : encodeBytesWithin(percentDecodeBytes(s), length);
  }
  return s.replace(/-+$/, '');
}

/**
 * Candidate slugs in the order WordPress tries them: base, then base-2, base-3, … with the base shortened
 * so that base + "-N" fits in MAX_SLUG_LENGTH. The caller takes the first one that is free (and not reserved).
 */
export function* uniqueSlugCandidates(base: string): Generator<string, never, undefined> {
  yield base;
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    yield truncateSlug(base, MAX_SLUG_LENGTH - suffix.length) + suffix;
  }
}

const FEED_NAMES = new Set(['feed', 'rdf', 'rss', 'rss2', 'atom']);

/**
 * Slugs WordPress refuses even when no other post uses them, so they get a "-2" suffix: feed names and
 * "embed" for every type; for hierarchical types (pages) also "123" and "page123" (pagination); for posts
 * a non-zero number (with the site's /%postname%/ permalinks it would clash with a year archive).
 */
export function isReservedSlug(slug: string, kind: 'post' | 'hierarchical' | 'attachment' | 'other' = 'post'): boolean {
  if (FEED_NAMES.has(slug) || slug === 'embed') return true;
  if (kind === 'hierarchical') return /^(?:page)?\d+$/.test(slug);
  if (kind === 'post') return /^\d+$/.test(slug) && Number(slug) !== 0;
  return false;
}
