/**
 * The `rendered` strings of the WordPress 6.1 REST API (title, content, excerpt), reimplemented from observed
 * behaviour of the reference install: the same input gives the same bytes.
 *
 * content.rendered = blocks → texturize → autop (classic content only) → shortcode unwrapping →
 *                    image/iframe attributes → "WordPress" capitalisation → smilies.
 * title.rendered   = texturize → bare "&" escaped → trimmed → "WordPress" capitalisation.
 * excerpt.rendered = explicit excerpt, or 55 words generated from the content (text before <!--more-->),
 *                    then texturize → smilies → bare "&" escaped → autop → shortcode unwrapping →
 *                    image attributes.
 *
 * The REST API renders the stored post_content as is, so `<!--more-->` and `<!--nextpage-->` stay verbatim
 * in content.rendered; RenderContentOptions.more gives the theme's full-post view instead.
 *
 * Not reproduced (they need state outside the text): running shortcodes ([gallery], [caption], [embed] …),
 * oEmbed of bare URLs, dynamic blocks and the layout classes WordPress adds to group/columns/buttons
 * (`is-layout-flow`, `wp-container-N`), srcset/sizes of media-library images.
 *
 * Regular expressions spell whitespace as WS (space, \t, \n, \v, \f, \r): PHP's `\s`, narrower than
 * JavaScript's, which would also match non-breaking and other Unicode spaces.
 */

import { stripTagsLikePhp } from './slug';

const WS = '[ \\t\\n\\x0B\\f\\r]';
/** What WordPress counts as a space around quotes, dashes and smilies. */
const SPACE = '(?:[\\r\\n\\t ]|\\u00a0|&nbsp;)';
/** End of a text chunk: the end, or just before a final newline (PCRE "$" and "\Z"). */
const END = '(?=\\n?(?![\\s\\S]))';

const ENTITY_SAFE_AMP = /&(?!#(?:\d+|x[a-f0-9]+);|[a-z1-4]{1,8};)/gi;

/** Escapes every "&" that does not already start an entity (what texturize does to text and tags). */
function escapeBareAmpersands(text: string): string {
  return text.includes('&') ? text.replace(ENTITY_SAFE_AMP, '&#038;') : text;
}

/** Whether a UTF-16 code unit is in PHP trim()'s default set: space, \t, \n, \r, NUL, \v. */
function isPhpTrimmed(c: number): boolean {
  return c === 32 || c === 10 || c === 9 || c === 13 || c === 0 || c === 11;
}

/** PHP trim()'s default character set. A loop: the regex form tried a match at every space of a long text. */
function phpTrim(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && isPhpTrimmed(s.charCodeAt(start))) start++;
  while (end > start && isPhpTrimmed(s.charCodeAt(end - 1))) end--;
  return start === 0 && end === s.length ? s : s.slice(start, end);
}

function replaceAll(s: string, search: string, replacement: string): string {
  return s.includes(search) ? s.split(search).join(replacement) : s;
}

// ---------------------------------------------------------------------------------------------------------
// Shortcodes (names only: palimpsest does not run them, but they shape texturize and excerpts)

/** Shortcodes a stock WordPress 6.1 registers. */
export const DEFAULT_SHORTCODES: readonly string[] = ['wp_caption', 'caption', 'gallery', 'playlist', 'audio', 'video', 'embed'];

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/**
 * Registered shortcode names that occur as "[name" (or also "[/name" when `closers`) in the text, in the order
 * of `registered`. A name runs from after "[" (or "[/") to the first space, control character, "<", ">", "&",
 * "/", "[", "]" or "=" (the run `[^<>&\/\[\]\x00-\x20=]+` of WordPress's pattern). A walk from "[" to "[":
 * most texts that have one hold no shortcode (an excerpt's " [&hellip;]").
 */
export function shortcodesIn(text: string, registered: readonly string[], closers = true): string[] {
  if (registered.length === 0) return [];
  let found: string[] | null = null;
  for (let open = text.indexOf('['); open >= 0; open = text.indexOf('[', open + 1)) {
    let start = open + 1;
    if (closers && text.charCodeAt(start) === 47) start++; // "/"
    let end = start;
    while (end < text.length && isShortcodeNameChar(text.charCodeAt(end))) end++;
    if (end === start) continue;
    const name = text.slice(start, end);
    if (registered.includes(name)) (found ??= []).push(name);
  }
  if (found === null) return [];
  const seen = found;
  return registered.filter((n) => seen.includes(n));
}

/** Any character but the controls, space, "<", ">", "&", "/", "[", "]" and "=". */
function isShortcodeNameChar(c: number): boolean {
  return c > 32 && c !== 60 && c !== 62 && c !== 38 && c !== 47 && c !== 91 && c !== 93 && c !== 61;
}

// ---------------------------------------------------------------------------------------------------------
// texturize

const NO_TEXTURIZE_TAGS = ['pre', 'code', 'kbd', 'style', 'script', 'tt'];
const NO_TEXTURIZE_SHORTCODES = ['code'];

const OPEN_SINGLE = '&#8216;';
const CLOSE_SINGLE = '&#8217;';
const APOSTROPHE = '&#8217;';
const OPEN_DOUBLE = '&#8220;';
const CLOSE_DOUBLE = '&#8221;';
const PRIME = '&#8242;';
const DOUBLE_PRIME = '&#8243;';
const EN_DASH = '&#8211;';
const EM_DASH = '&#8212;';

// Placeholders for quotes whose final form is decided later. They are the markers WordPress uses: the
// lookbehinds of later patterns see them, so other strings could change results in rare cases.
const APOS_FLAG = '<!--apos-->';
const OPEN_SQ_FLAG = '<!--osq-->';
const OPEN_Q_FLAG = '<!--oq-->';
const PRIME_OR_QUOTE = '<!--wp-prime-or-quote-->';

// Plain substitutions, applied one after another: these first, then " (tm)", then the elisions.
const STATIC_REPLACEMENTS: ReadonlyArray<readonly [string, string]> = [
  ['...', '&#8230;'],
  ['``', OPEN_DOUBLE],
  ["''", CLOSE_DOUBLE],
];
// Elisions that start with an apostrophe rather than an opening quote.
const ELISIONS: ReadonlyArray<readonly [string, string]> = [
  "'tain't", "'twere", "'twas", "'tis", "'twill", "'til", "'bout", "'nuff", "'round", "'cause", "'em",
].map((w) => [w, w.replace(/'/g, APOSTROPHE)] as const);

// Rules test what precedes a quote or dash with a lookbehind placed after the literal (`'(?<=X')` rather than
// `(?<=X)'`): same matches, but the regexp engine can scan for the literal instead of trying every position.

// After a closing quote: end, punctuation, "&gt;" or a space.
const CLOSES = `(?=${END}|[.,:;!?)}\\-\\]]|&gt;|${SPACE})`;

const SINGLE_QUOTE_RULES: ReadonlyArray<readonly [RegExp, string]> = [
  // '99' and '99" : an abbreviated year at the end of a quotation.
  [new RegExp(`'(\\d\\d)'${CLOSES}`, 'g'), `${APOS_FLAG}$1${CLOSE_SINGLE}`],
  [new RegExp(`'(\\d\\d)"${CLOSES}`, 'g'), `${APOS_FLAG}$1${CLOSE_DOUBLE}`],
  // '99, '99s: an apostrophe — but not '9, '99%, '999 or '99.0.
  [new RegExp(`'(?=\\d\\d(?:${END}|(?![%\\d]|[.,]\\d)))`, 'g'), APOS_FLAG],
  // '0.42' after a space: a quoted number.
  [new RegExp(`'(?<=(?:^|${SPACE})')(\\d[.,\\d]*)'`, 'g'), `${OPEN_SQ_FLAG}$1${CLOSE_SINGLE}`],
  // At the start, or after ( [ { " - &lt; or a space: an opening quote.
  [new RegExp(`'(?<=(?:^|[(\\[{"\\-]|&lt;|${SPACE})')`, 'g'), OPEN_SQ_FLAG],
  // Inside a word: an apostrophe.
  [new RegExp(`'(?<!${SPACE}')(?!${END}|[.,:;!?"'(){}\\[\\]\\-]|&[lg]t;|${SPACE})`, 'g'), APOS_FLAG],
];

const DOUBLE_QUOTE_RULES: ReadonlyArray<readonly [RegExp, string]> = [
  [new RegExp(`"(?<=(?:^|${SPACE})")(\\d[.,\\d]*)"`, 'g'), `${OPEN_Q_FLAG}$1${CLOSE_DOUBLE}`],
  [new RegExp(`"(?<=(?:^|[(\\[{\\-]|&lt;|${SPACE})")(?!${SPACE})`, 'g'), OPEN_Q_FLAG],
];

const DASH_RULES: ReadonlyArray<readonly [RegExp, string]> = [
  [/---/g, EM_DASH],
  [new RegExp(`--(?<=(?:^|${SPACE})--)(?=${END}|${SPACE})`, 'g'), EM_DASH],
  [/--(?<!xn--)/g, EN_DASH], // "xn--" starts punycode host names
  [new RegExp(`-(?<=(?:^|${SPACE})-)(?=${END}|${SPACE})`, 'g'), EN_DASH],
];

function countMatches(s: string, re: RegExp): number {
  re.lastIndex = 0;
  let n = 0;
  while (re.exec(s)) n++;
  return n;
}

interface PrimeRules {
  quote: RegExp;
  prime: RegExp;
}
const PRIME_RULES: Record<"'" | '"', PrimeRules> = {
  "'": { quote: new RegExp(`'${CLOSES}`, 'g'), prime: /'(?<=\d')/g },
  '"': { quote: new RegExp(`"${CLOSES}`, 'g'), prime: /"(?<=\d")/g },
};
const FLAG_AFTER_DIGIT = new RegExp(`${PRIME_OR_QUOTE}(?<=\\d${PRIME_OR_QUOTE})`, 'g');
const FLAG_NOT_AFTER_DIGIT = new RegExp(`${PRIME_OR_QUOTE}(?<!\\d${PRIME_OR_QUOTE})`, 'g');

/**
 * Decides, for the quote characters left after the quote rules, between closing quote and prime (5'10"):
 * the text is cut at each opening quote; within a quotation that is still open, a lone candidate is the
 * closing quote, among several the one not after a digit (or the last one before a period, or the last one)
 * closes it and the rest after digits are primes. Outside quotations, after a digit means prime.
 */
function primesAndClosingQuotes(text: string, needle: "'" | '"', prime: string, openFlag: string, close: string): string {
  const rules = PRIME_RULES[needle];
  const pieces = text.split(openFlag);
  for (let i = 0; i < pieces.length; i++) {
    let piece = pieces[i]!;
    if (!piece.includes(needle)) continue;
    if (i > 0 && !piece.includes(close)) {
      const candidates = countMatches(piece, rules.quote);
      piece = piece.replace(rules.quote, PRIME_OR_QUOTE);
      if (candidates > 1) {
        const notAfterDigit = countMatches(piece, FLAG_NOT_AFTER_DIGIT);
        piece = piece.replace(FLAG_NOT_AFTER_DIGIT, close);
        if (notAfterDigit === 0) {
          const beforePeriod = piece.lastIndexOf(PRIME_OR_QUOTE + '.');
          const at = beforePeriod >= 0 ? beforePeriod : piece.lastIndexOf(PRIME_OR_QUOTE);
          piece = piece.slice(0, at) + close + piece.slice(at + PRIME_OR_QUOTE.length);
        }
        piece = piece.replace(rules.prime, prime).replace(FLAG_AFTER_DIGIT, prime);
        piece = replaceAll(piece, PRIME_OR_QUOTE, close);
      } else if (candidates === 1) {
        piece = replaceAll(piece, PRIME_OR_QUOTE, close).replace(rules.prime, prime);
      } else {
        piece = piece.replace(rules.prime, prime);
      }
    } else {
      piece = piece.replace(rules.prime, prime).replace(rules.quote, close);
    }
    if (needle === '"') piece = replaceAll(piece, '"', close);
    pieces[i] = piece;
  }
  return pieces.join(openFlag);
}

/** Whether "x" stands between two digits somewhere (what TIMES needs to match). */
function hasDigitXDigit(s: string): boolean {
  for (let x = s.indexOf('x', 1); x >= 0; x = s.indexOf('x', x + 1)) {
    if (isAsciiDigit(s.charCodeAt(x - 1)) && isAsciiDigit(s.charCodeAt(x + 1))) return true;
  }
  return false;
}

function isAsciiDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}
// 9x9 → 9×9, but a leading "0x" needs more digits (hexadecimal such as 0x1F stays).
const TIMES = /\b(0[\d.,]+|[1-9][\d.,]*)x(\d[\d.,]*)\b/g;

/** Typography of one text chunk that is outside tags and outside no-texturize elements. */
function texturizeText(chunk: string): string {
  let s = chunk;
  for (let i = 0; i < STATIC_REPLACEMENTS.length; i++) s = replaceAll(s, STATIC_REPLACEMENTS[i]![0], STATIC_REPLACEMENTS[i]![1]);
  // " (tm)" is looked for only where "(tm)" is: V8 finds a needle that starts with a space far more slowly.
  if (s.includes('(tm)')) s = replaceAll(s, ' (tm)', ' &#8482;');
  // Every elision starts with an apostrophe; most text has none.
  if (s.includes("'")) for (let i = 0; i < ELISIONS.length; i++) s = replaceAll(s, ELISIONS[i]![0], ELISIONS[i]![1]);
  if (s.includes("'")) {
    for (const [re, to] of SINGLE_QUOTE_RULES) s = s.replace(re, to);
    s = primesAndClosingQuotes(s, "'", PRIME, OPEN_SQ_FLAG, CLOSE_SINGLE);
    s = replaceAll(replaceAll(s, APOS_FLAG, APOSTROPHE), OPEN_SQ_FLAG, OPEN_SINGLE);
  }
  if (s.includes('"')) {
    for (const [re, to] of DOUBLE_QUOTE_RULES) s = s.replace(re, to);
    s = primesAndClosingQuotes(s, '"', DOUBLE_PRIME, OPEN_Q_FLAG, CLOSE_DOUBLE);
    s = replaceAll(s, OPEN_Q_FLAG, OPEN_DOUBLE);
  }
  if (s.includes('-')) for (const [re, to] of DASH_RULES) s = s.replace(re, to);
  if (hasDigitXDigit(s)) s = s.replace(TIMES, '$1&#215;$2');
  return escapeBareAmpersands(s);
}

// An HTML comment (to "-->" or the end), or "<" up to the next ">" (or the end).
const TEXTURIZE_HTML = '<(?:(?=!--)!(?:-(?!->)[^-]*)*(?:-->)?|[^>]*>?)';
/** TEXTURIZE_HTML as a splitter (exported for the test that checks splitAtHtml against it). */
export const TEXTURIZE_SPLIT = new RegExp(`(${TEXTURIZE_HTML})`);

/**
 * `text.split(TEXTURIZE_SPLIT)`, found with indexOf: text, token, text, …, text. A token is an HTML comment from
 * "<!--" to the first "-->" after it (the "-->" may start at its second "-", as in "<!-->"), or "<" to the next
 * ">"; either runs to the end when unclosed.
 */
export function splitAtHtml(text: string): string[] {
  const parts: string[] = [];
  let from = 0;
  for (let lt = text.indexOf('<'); lt >= 0; lt = text.indexOf('<', from)) {
    let end: number;
    if (text.startsWith('!--', lt + 1)) {
      const close = text.indexOf('-->', lt + 2);
      end = close < 0 ? text.length : close + 3;
    } else {
      const close = text.indexOf('>', lt + 1);
      end = close < 0 ? text.length : close + 1;
    }
    parts.push(text.slice(from, lt), text.slice(lt, end));
    from = end;
  }
  parts.push(text.slice(from));
  return parts;
}

const BARE_AMPERSAND = /&(?!#(?:\d+|x[a-f0-9]+);|[a-z1-4]{1,8};)/i;

/**
 * Whether texturize could change the text. Each of its changes needs one of these: a quote ("'", '"'), a "-",
 * "``", "...", " (tm)", an "x" between two digits, or an "&" that does not start an entity (the tags' and the
 * text's bare "&"). Text without any (most prose without quotes or dashes) is its own result: no split, no pass.
 */
export function mayTexturize(text: string): boolean {
  return (
    text.includes("'") ||
    text.includes('"') ||
    text.includes('-') ||
    text.includes('``') ||
    text.includes('...') ||
    text.includes('(tm)') || // not " (tm)": V8 finds a needle that starts with a space far more slowly
    hasDigitXDigit(text) ||
    (text.includes('&') && BARE_AMPERSAND.test(text))
  );
}

function shortcodeTokenSource(names: string[]): string {
  const alt = names.map(escapeRegExp).join('|');
  // "[name …]", "[/name]", "[[name]]"; attributes may hold HTML tags but no brackets.
  return `\\[[\\/\\[]?(?:${alt})(?=[\\s\\]\\/])(?:[^\\[\\]<>]|<[^\\[\\]>]*>)*\\]\\]?`;
}

/**
 * Updates the stack of open no-texturize elements for a tag (or shortcode) token: the name runs from after
 * "<" or "</" to the first space, or to the end minus the closing ">".
 */
function trackElement(token: string, stack: string[], names: readonly string[]): void {
  let opening: boolean;
  let from: number;
  if (token.length > 1 && token[1] !== '/') {
    opening = true;
    from = 1;
  } else if (token.length > 2 && token[1] === '/') {
    opening = false;
    from = 2;
  } else return;
  const space = token.indexOf(' ');
  const name = space < 0 ? token.slice(from, -1) : token.slice(from, space);
  if (!names.includes(name)) return;
  if (opening) stack.push(name);
  else if (stack[stack.length - 1] === name) stack.pop();
}

export interface TexturizeOptions {
  /** Registered shortcode names (their tags are left untouched). Default: DEFAULT_SHORTCODES. */
  shortcodes?: readonly string[];
}

/**
 * WordPress's `wptexturize`: curly quotes, apostrophes, primes, dashes, ellipsis, ™, ×, and "&" → "&#038;",
 * outside tags and outside <pre>, <code>, <kbd>, <style>, <script>, <tt>. Tags keep their text, but a bare
 * "&" in an attribute is escaped too; HTML comments are left alone.
 */
export function texturize(text: string, options: TexturizeOptions = {}): string {
  return mayTexturize(text) ? texturizeParts(text, options) : text;
}

/** texturize without the check that something could change (exported for the test that compares the two). */
export function texturizeParts(text: string, options: TexturizeOptions = {}): string {
  if (text === '' || text === '0') return text;
  const found = shortcodesIn(text, options.shortcodes ?? DEFAULT_SHORTCODES);
  const shortcodeSource = found.length ? shortcodeTokenSource(found) : '';
  const wholeShortcode = shortcodeSource ? new RegExp(`^${shortcodeSource}$`) : null;
  const tagStack: string[] = [];
  const shortcodeStack: string[] = [];
  const parts = shortcodeSource ? text.split(new RegExp(`(${TEXTURIZE_HTML}|${shortcodeSource})`)) : splitAtHtml(text);
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (part === '') continue;
    const first = part[0];
    if (first === '<') {
      if (part.startsWith('<!--')) continue;
      parts[i] = escapeBareAmpersands(part);
      trackElement(part, tagStack, NO_TEXTURIZE_TAGS);
    } else if (phpTrim(part) === '') {
      // Whitespace between tags and shortcodes is left as it is.
    } else if (first === '[' && wholeShortcode && wholeShortcode.test(part)) {
      if (!part.startsWith('[[') && !part.endsWith(']]')) trackElement(part, shortcodeStack, NO_TEXTURIZE_SHORTCODES);
    } else if (tagStack.length === 0 && shortcodeStack.length === 0) {
      parts[i] = texturizeText(part);
    }
  }
  return parts.join('');
}

// ---------------------------------------------------------------------------------------------------------
// autop

const BLOCK_TAGS =
  '(?:table|thead|tfoot|caption|col|colgroup|tbody|tr|td|th|div|dl|dd|dt|ul|ol|li|pre|form|map|area|blockquote|address|math|style|p|h[1-6]|hr|fieldset|legend|section|article|aside|hgroup|header|footer|nav|figure|figcaption|details|menu|summary)';

const RE_BLOCK_OPEN = new RegExp(`(<${BLOCK_TAGS}(?:${WS}|[\\/>]))`, 'g');
const RE_BLOCK_CLOSE = new RegExp(`(<\\/${BLOCK_TAGS}>)`, 'g');
const RE_BLOCK_TAG_ALONE_IN_P = new RegExp(`<p>${WS}*(<\\/?${BLOCK_TAGS}[^>]*>)${WS}*<\\/p>`, 'g');
const RE_P_BEFORE_BLOCK_TAG = new RegExp(`<p>${WS}*(<\\/?${BLOCK_TAGS}[^>]*>)`, 'g');
const RE_END_P_AFTER_BLOCK_TAG = new RegExp(`(<\\/?${BLOCK_TAGS}[^>]*>)${WS}*<\\/p>`, 'g');
const RE_BR_AFTER_BLOCK_TAG = new RegExp(`(<\\/?${BLOCK_TAGS}[^>]*>)${WS}*<br \\/>`, 'g');
const RE_BR_BEFORE_SOME_BLOCK_TAGS = new RegExp(`<br \\/>(${WS}*<\\/?(?:p|li|div|dl|dd|dt|th|pre|td|ul|ol)[^>]*>)`, 'g');

/**
 * End (exclusive) of the HTML token that starts with the "<" at `lt`: a comment (to "-->" or the end), a CDATA
 * section (to "]]>" or the end), or a tag (to ">" or the end). The same tokens as the pattern
 * `<(?:!--(?:…)-->?|!\[CDATA\[…(?:\]\]>)?|[^>]*>?)`, found with indexOf.
 */
function htmlTokenEnd(text: string, lt: number): number {
  let close: number;
  if (text.startsWith('!--', lt + 1)) {
    close = text.indexOf('-->', lt + 2);
    return close < 0 ? text.length : close + 3;
  }
  if (text.startsWith('![CDATA[', lt + 1)) {
    close = text.indexOf(']]>', lt + 9);
    return close < 0 ? text.length : close + 3;
  }
  close = text.indexOf('>', lt + 1);
  return close < 0 ? text.length : close + 1;
}

/** Replaces each newline inside tags, comments and CDATA sections (text between tags is left as is). */
function markNewlinesInsideTags(text: string, mark: string): string {
  let out = '';
  let copied = 0;
  let newline = text.indexOf('\n');
  for (let lt = text.indexOf('<'); lt >= 0 && newline >= 0; ) {
    const end = htmlTokenEnd(text, lt);
    if (newline < lt) newline = text.indexOf('\n', lt);
    if (newline >= 0 && newline < end) {
      out += text.slice(copied, lt) + replaceAll(text.slice(lt, end), '\n', mark);
      copied = end;
    }
    lt = end < text.length ? text.indexOf('<', end) : -1;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** Space, \t, \n, \v, \f or \r: PHP's `\s`, which autop's patterns use. */
function isAutopSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 9 || c === 13 || c === 11 || c === 12;
}

/**
 * `text.replace(/(?<!<br \/>)\s*\n/g, '<br />\n')` (PHP's \s): each run of whitespace up to its last newline
 * becomes one line break, unless it follows "<br />" (then the run from its second character does). Walks
 * from newline to newline instead of trying a match at every character.
 */
function newlinesToBreaks(text: string): string {
  let out = '';
  let copied = 0;
  let resume = 0;
  for (let newline = text.indexOf('\n'); newline >= 0; newline = text.indexOf('\n', resume)) {
    let start = newline;
    while (start > resume && isAutopSpace(text.charCodeAt(start - 1))) start--;
    if (start >= 6 && text.startsWith('<br />', start - 6)) {
      if (start === newline) {
        resume = newline + 1;
        continue;
      }
      start++;
    }
    let end = newline;
    for (let j = newline + 1; j < text.length; j++) {
      const c = text.charCodeAt(j);
      if (c === 10) end = j;
      else if (!isAutopSpace(c)) break;
    }
    out += text.slice(copied, start) + '<br />\n';
    copied = resume = end + 1;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** A paragraph without its leading and trailing newlines. */
function trimNewlines(para: string): string {
  let start = 0;
  let end = para.length;
  while (start < end && para.charCodeAt(start) === 10) start++;
  while (end > start && para.charCodeAt(end - 1) === 10) end--;
  return start === 0 && end === para.length ? para : para.slice(start, end);
}

const NEWLINE_MARK = ' <!-- wpnl --> ';
const PRESERVED_NEWLINE = '<WPPreserveNewline />';

const RE_DOUBLE_BR = new RegExp(`<br${WS}*\\/?>${WS}*<br${WS}*\\/?>`, 'g');
const RE_HR = new RegExp(`(<hr${WS}*?\\/?>)`, 'g');
const RE_SPACE_BEFORE_OPTION = new RegExp(`${WS}*<option`, 'g');
const RE_SPACE_AFTER_OPTION = new RegExp(`<\\/option>${WS}*`, 'g');
const RE_SPACE_AFTER_OBJECT = new RegExp(`(<object[^>]*>)${WS}*`, 'g');
const RE_SPACE_BEFORE_OBJECT_END = new RegExp(`${WS}*<\\/object>`, 'g');
const RE_SPACE_AROUND_PARAM = new RegExp(`${WS}*(<\\/?(?:param|embed)[^>]*>)${WS}*`, 'g');
const RE_SPACE_AFTER_MEDIA = new RegExp(`([<\\[](?:audio|video)[^>\\]]*[>\\]])${WS}*`, 'g');
const RE_SPACE_BEFORE_MEDIA_END = new RegExp(`${WS}*([<\\[]\\/(?:audio|video)[>\\]])`, 'g');
const RE_SPACE_AROUND_SOURCE = new RegExp(`${WS}*(<(?:source|track)[^>]*>)${WS}*`, 'g');
const RE_SPACE_BEFORE_FIGCAPTION = new RegExp(`${WS}*(<figcaption[^>]*>)`, 'g');
const RE_SPACE_AFTER_FIGCAPTION = new RegExp(`<\\/figcaption>${WS}*`, 'g');
const RE_PARAGRAPH_BREAK = new RegExp(`\\n${WS}*\\n`);
const RE_EMPTY_P = new RegExp(`<p>${WS}*<\\/p>`, 'g');
const RE_P_CLOSED_BY_DIV = /<p>([^<]+)<\/(div|address|form)>/g;
const RE_P_AROUND_LI = /<p>(<li[^\n]+?)<\/p>/g;
const RE_P_BEFORE_BLOCKQUOTE = /<p><blockquote([^>]*)>/gi;
const RE_NEWLINE_KEEPERS = /<(script|style|svg)[\s\S]*?<\/\1>/g;

/**
 * WordPress's `wpautop`: blank lines make paragraphs (`<p>…</p>\n`), single newlines become `<br />\n`
 * (when `br`), block-level elements are not wrapped, and `<pre>` contents are kept byte for byte.
 * Text already in the simplest paragraph form takes a shortcut (see simpleParagraphs).
 */
export function autop(input: string, br = true): string {
  return simpleParagraphs(input) ?? autopPasses(input, br);
}

/**
 * Inline elements none of autop's patterns treat as blocks or look into (no block tag name is a prefix of theirs,
 * and none is `br`, `pre`, `script`, `style`, `svg`, `option`, `object`, `param`, `embed`, `source`, `track`,
 * `audio`, `video` or `figcaption`).
 */
const PLAIN_INLINE_TAGS = new Set(['a', 'abbr', 'b', 'bdi', 'bdo', 'cite', 'code', 'del', 'dfn', 'em', 'i', 'img', 'ins', 'kbd', 'mark', 'q', 's', 'samp', 'small', 'span', 'strong', 'sub', 'sup', 'time', 'u', 'var']);

/**
 * What autop gives, worked out without its passes, for the two forms most texts it sees take: one line of text
 * without tags (an excerpt: `<p>text</p>\n`), or `<p>…</p>` paragraphs with only newlines between and around them,
 * each holding some text on one line (no newline or carriage return) and no tag but the plain inline ones, as the
 * block editor stores paragraphs (each stays as it is, followed by a newline). Null for any other text: autop's
 * passes then decide. `br` makes no difference to such texts (they have no newline inside a paragraph).
 */
export function simpleParagraphs(input: string): string | null {
  if (input.indexOf('\r') >= 0) return null;
  // Without a tag: one paragraph, unless the text is blank to autop (a form feed alone is not blank to PHP's trim).
  if (input.indexOf('<') < 0) return isSimpleParagraphText(input, 0, input.length) ? `<p>${input}</p>\n` : null;
  const n = input.length;
  let out = '';
  let i = 0;
  for (;;) {
    while (i < n && input.charCodeAt(i) === 10) i++;
    if (i === n) return out === '' ? null : out;
    if (!input.startsWith('<p>', i)) return null;
    const start = i + 3;
    const end = input.indexOf('</p>', start);
    if (end < 0 || !isSimpleParagraphText(input, start, end)) return null;
    out += input.slice(i, end + 4) + '\n';
    i = end + 4;
  }
}

/** Whether input[start, end) has a character other than autop's whitespace, no newline, and only plain inline tags. */
function isSimpleParagraphText(input: string, start: number, end: number): boolean {
  const newline = input.indexOf('\n', start);
  if (newline >= 0 && newline < end) return false;
  for (let lt = input.indexOf('<', start); lt >= 0 && lt < end; lt = input.indexOf('<', lt + 1)) {
    if (!isPlainInlineTagAt(input, lt + 1, end)) return false;
  }
  for (let i = start; i < end; i++) if (!isAutopSpace(input.charCodeAt(i))) return true;
  return false;
}

/** Whether the tag whose "<" is just before `at` opens or closes a plain inline element (its name ends at a space, "/" or ">"). */
function isPlainInlineTagAt(input: string, at: number, end: number): boolean {
  let i = input.charCodeAt(at) === 47 ? at + 1 : at; // "/"
  const nameStart = i;
  while (i < end) {
    const c = input.charCodeAt(i);
    if (c < 97 || c > 122) break; // a-z
    i++;
  }
  if (i === nameStart || i >= end) return false;
  const after = input.charCodeAt(i);
  if (after !== 62 && after !== 47 && after !== 32 && after !== 9 && after !== 11 && after !== 12) return false; // > / space \t \v \f
  return PLAIN_INLINE_TAGS.has(input.slice(nameStart, i));
}

/** autop's passes, for any text (exported for the tests that check simpleParagraphs against them). Each pass whose pattern needs a literal the text lacks is skipped. */
export function autopPasses(input: string, br = true): string {
  if (phpTrim(input) === '') return '';
  let text = input + '\n';

  // Set <pre> elements aside; they come back unchanged at the end.
  const preserved: Array<[string, string]> = [];
  if (text.includes('<pre')) {
    const chunks = text.split('</pre>');
    const tail = chunks.pop()!;
    let rebuilt = '';
    for (const chunk of chunks) {
      const start = chunk.indexOf('<pre');
      if (start < 0) {
        rebuilt += chunk; // a stray </pre> is dropped
        continue;
      }
      const key = `<pre wp-pre-tag-${preserved.length}></pre>`;
      preserved.push([key, chunk.slice(start) + '</pre>']);
      rebuilt += chunk.slice(0, start) + key;
    }
    text = rebuilt + tail;
  }

  if (text.includes('<br')) text = text.replace(RE_DOUBLE_BR, '\n\n');
  text = text.replace(RE_BLOCK_OPEN, '\n\n$1');
  if (text.includes('</')) text = text.replace(RE_BLOCK_CLOSE, '$1\n\n');
  if (text.includes('<hr')) text = text.replace(RE_HR, '$1\n\n');
  if (text.includes('\r')) text = text.replace(/\r\n|\r/g, '\n');
  text = markNewlinesInsideTags(text, NEWLINE_MARK);

  // Keep the children of these elements together so that they are not split into paragraphs.
  if (text.includes('<option')) {
    text = text.replace(RE_SPACE_BEFORE_OPTION, '<option');
    text = text.replace(RE_SPACE_AFTER_OPTION, '</option>');
  }
  if (text.includes('</object>')) {
    text = text.replace(RE_SPACE_AFTER_OBJECT, '$1');
    text = text.replace(RE_SPACE_BEFORE_OBJECT_END, '</object>');
    text = text.replace(RE_SPACE_AROUND_PARAM, '$1');
  }
  if (text.includes('<source') || text.includes('<track')) {
    text = text.replace(RE_SPACE_AFTER_MEDIA, '$1');
    text = text.replace(RE_SPACE_BEFORE_MEDIA_END, '$1');
    text = text.replace(RE_SPACE_AROUND_SOURCE, '$1');
  }
  if (text.includes('<figcaption')) {
    text = text.replace(RE_SPACE_BEFORE_FIGCAPTION, '$1');
    text = text.replace(RE_SPACE_AFTER_FIGCAPTION, '</figcaption>');
  }

  if (text.includes('\n\n\n')) text = text.replace(/\n\n+/g, '\n\n');
  let wrapped = '';
  for (const para of text.split(RE_PARAGRAPH_BREAK)) {
    if (para === '') continue;
    wrapped += '<p>' + trimNewlines(para) + '</p>\n';
  }
  text = wrapped;

  text = text.replace(RE_EMPTY_P, '');
  if (text.includes('</div>') || text.includes('</address>') || text.includes('</form>')) text = text.replace(RE_P_CLOSED_BY_DIV, '<p>$1</p></$2>');
  text = text.replace(RE_BLOCK_TAG_ALONE_IN_P, '$1');
  if (text.includes('<p><li')) text = text.replace(RE_P_AROUND_LI, '$1');
  text = text.replace(RE_P_BEFORE_BLOCKQUOTE, '<blockquote$1><p>');
  text = replaceAll(text, '</blockquote></p>', '</p></blockquote>');
  text = text.replace(RE_P_BEFORE_BLOCK_TAG, '$1');
  text = text.replace(RE_END_P_AFTER_BLOCK_TAG, '$1');

  if (br) {
    // Newlines inside script, style and svg elements must stay newlines.
    if (text.includes('<script') || text.includes('<style') || text.includes('<svg')) {
      text = text.replace(RE_NEWLINE_KEEPERS, (m) => replaceAll(m, '\n', PRESERVED_NEWLINE));
    }
    text = replaceAll(replaceAll(text, '<br>', '<br />'), '<br/>', '<br />');
    text = newlinesToBreaks(text);
    text = replaceAll(text, PRESERVED_NEWLINE, '\n');
  }

  if (text.includes('<br />')) {
    text = text.replace(RE_BR_AFTER_BLOCK_TAG, '$1');
    text = text.replace(RE_BR_BEFORE_SOME_BLOCK_TAGS, '$1');
  }
  // The last paragraph's closing tag moves up to its text ("\n</p>" at the very end, or before a final newline).
  if (text.endsWith('\n</p>')) text = text.slice(0, -5) + '</p>';
  else if (text.endsWith('\n</p>\n')) text = text.slice(0, -6) + '</p>\n';

  for (const [key, original] of preserved) text = replaceAll(text, key, original);
  if (text.includes('<!-- wpnl -->')) text = replaceAll(replaceAll(text, NEWLINE_MARK, '\n'), '<!-- wpnl -->', '\n');
  return text;
}

// ---------------------------------------------------------------------------------------------------------
// Blocks

/** A parsed block: `name` is null for HTML outside any block ("freeform"). */
export interface ParsedBlock {
  name: string | null;
  /** The attribute JSON as written (not parsed), or null. */
  attrs: string | null;
  innerBlocks: ParsedBlock[];
  /** HTML pieces, with null where an inner block goes. */
  innerContent: Array<string | null>;
}

const BLOCK_DELIMITER = new RegExp(
  `<!--${WS}+(\\/)?wp:([a-z][a-z0-9_-]*\\/)?([a-z][a-z0-9_-]*)${WS}+` +
    `(\\{(?:[^}]|\\}(?!${WS}+\\/?-->))*\\}${WS}+)?(\\/)?-->`,
  'g',
);

/** PHP empty() on a string: "" and "0" count as empty (the block parser drops such HTML pieces). */
const isEmptyPiece = (s: string) => s === '' || s === '0';

interface OpenBlock {
  block: ParsedBlock;
  tokenStart: number;
  tokenEnd: number;
  /** Where this block's not-yet-collected HTML starts. */
  prevOffset: number;
  /** Start of top-level HTML between the previous block and this one, if any. */
  leadingHtmlStart: number | null;
}

function freeformBlock(html: string): ParsedBlock {
  return { name: null, attrs: null, innerBlocks: [], innerContent: [html] };
}

function newBlock(ns: string | undefined, name: string, attrs: string | undefined): ParsedBlock {
  return { name: (ns ?? 'core/') + name, attrs: attrs ? attrs.replace(TRAILING_WS, '') : null, innerBlocks: [], innerContent: [] };
}

const TRAILING_WS = new RegExp(`${WS}+$`);

/**
 * The parser's state over one document. (Methods rather than closures made per call: the closures cost more
 * than parsing a short post.)
 */
class BlockParser {
  readonly output: ParsedBlock[] = [];
  readonly stack: OpenBlock[] = [];

  constructor(private readonly document: string) {}

  appendHtml(block: ParsedBlock, html: string): void {
    if (!isEmptyPiece(html)) block.innerContent.push(html);
  }

  addInner(block: ParsedBlock, tokenStart: number, lastOffset: number): void {
    const parent = this.stack[this.stack.length - 1]!;
    parent.block.innerBlocks.push(block);
    this.appendHtml(parent.block, this.document.slice(parent.prevOffset, tokenStart));
    parent.block.innerContent.push(null);
    parent.prevOffset = lastOffset;
  }

  closeTop(endOffset: number | null): void {
    const top = this.stack.pop()!;
    const document = this.document;
    this.appendHtml(top.block, endOffset === null ? document.slice(top.prevOffset) : document.slice(top.prevOffset, endOffset));
    if (top.leadingHtmlStart !== null) this.output.push(freeformBlock(document.slice(top.leadingHtmlStart, top.tokenStart)));
    this.output.push(top.block);
  }
}

/** Splits serialised block content into blocks, with the same recovery from malformed input as WordPress. */
export function parseBlocks(document: string): ParsedBlock[] {
  const parser = new BlockParser(document);
  const { output, stack } = parser;
  let offset = 0;
  BLOCK_DELIMITER.lastIndex = 0;
  for (;;) {
    const m = BLOCK_DELIMITER.exec(document);
    if (!m) {
      if (stack.length === 0) {
        if (offset < document.length) output.push(freeformBlock(document.slice(offset)));
      } else {
        // Unclosed blocks take the rest of the document (nested ones each, as WordPress does).
        while (stack.length) parser.closeTop(null);
      }
      break;
    }
    const [token, closer, ns, name, attrs, isVoid] = m;
    const start = m.index;
    const end = start + token.length;
    const leadingHtmlStart = start > offset ? offset : null;
    if (closer) {
      if (stack.length === 0) {
        // A closer without an opener: everything from here on is plain HTML.
        output.push(freeformBlock(document.slice(offset)));
        break;
      }
      if (stack.length === 1) parser.closeTop(start);
      else {
        // Closing a nested block keeps its last piece even when it is "0" (only this path does).
        const top = stack.pop()!;
        top.block.innerContent.push(document.slice(top.prevOffset, start));
        parser.addInner(top.block, top.tokenStart, end);
      }
    } else if (isVoid) {
      const block = newBlock(ns, name!, attrs);
      if (stack.length === 0) {
        if (leadingHtmlStart !== null) output.push(freeformBlock(document.slice(leadingHtmlStart, start)));
        output.push(block);
      } else parser.addInner(block, start, end);
    } else {
      stack.push({ block: newBlock(ns, name!, attrs), tokenStart: start, tokenEnd: end, prevOffset: end, leadingHtmlStart });
    }
    offset = end;
  }
  return output;
}

/** The HTML of a static block: its pieces with inner blocks rendered in place. */
export function renderBlock(block: ParsedBlock): string {
  let html = '';
  let inner = 0;
  for (const piece of block.innerContent) html += piece === null ? renderBlock(block.innerBlocks[inner++]!) : piece;
  return html;
}

/** Whether WordPress treats the content as block content (which turns autop off). */
export function hasBlocks(content: string): boolean {
  return content.includes('<!-- wp:');
}

/**
 * Block content as WordPress renders it for static blocks: the block comment delimiters go, the HTML
 * inside and between blocks stays (including the newlines around it).
 */
export function stripBlockDelimiters(content: string): string {
  if (!content.includes('wp:')) return content;
  return parseBlocks(content).map(renderBlock).join('');
}

// Blocks whose text may appear in a generated excerpt (WordPress 6.1: core/list-item is not among them, so a
// list in the 6.1 inner-block format is left out).
const EXCERPT_INNER_BLOCKS = new Set<string | null>([
  null, 'core/freeform', 'core/heading', 'core/html', 'core/list', 'core/media-text', 'core/paragraph',
  'core/preformatted', 'core/pullquote', 'core/quote', 'core/table', 'core/verse',
]);
const EXCERPT_WRAPPER_BLOCKS = new Set<string | null>(['core/columns', 'core/column', 'core/group']);
const isExcerptBlock = (name: string | null) => EXCERPT_INNER_BLOCKS.has(name) || EXCERPT_WRAPPER_BLOCKS.has(name);

function excerptInnerBlocks(block: ParsedBlock): string {
  let html = '';
  for (const inner of block.innerBlocks) {
    if (!isExcerptBlock(inner.name)) continue;
    html += inner.innerBlocks.length === 0 ? renderBlock(inner) : excerptInnerBlocks(inner);
  }
  return html;
}

/** Content reduced to the blocks whose text belongs in a generated excerpt (WordPress's excerpt_remove_blocks). */
export function excerptBlocksOnly(content: string): string {
  if (!hasBlocks(content)) return content;
  let html = '';
  for (const block of parseBlocks(content)) {
    if (!isExcerptBlock(block.name)) continue;
    if (block.innerBlocks.length > 0) {
      if (EXCERPT_WRAPPER_BLOCKS.has(block.name)) {
        html += excerptInnerBlocks(block);
        continue;
      }
      if (block.innerBlocks.some((b) => !EXCERPT_INNER_BLOCKS.has(b.name) || b.innerBlocks.length > 0)) continue;
    }
    html += renderBlock(block);
  }
  return html;
}

// ---------------------------------------------------------------------------------------------------------
// Smaller content filters

/** WordPress's capital_P_dangit: "Wordpress" → "WordPress" after a space, an opening quote, ">" or "(". */
function capitalPDangit(text: string): string {
  if (!text.includes('Wordpress')) return text;
  return text.replace(/( |&#8216;|&#8220;|>|\()Wordpress/g, '$1WordPress');
}

/** convert_chars: "&" followed by anything but "#" and not an entity name becomes "&#038;". */
function convertChars(text: string): string {
  return text.includes('&') ? text.replace(/&([^#])(?![a-z1-4]{1,8};)/gi, '&#038;$1') : text;
}

// Smilies WordPress replaces by default: emoji, except two that are images.
const SMILIES: Readonly<Record<string, string>> = {
  ':mrgreen:': 'mrgreen.png', ':roll:': '\u{1F644}', ':neutral:': '\u{1F610}', ':twisted:': '\u{1F608}',
  ':arrow:': '\u27A1', ':shock:': '\u{1F62F}', ':smile:': '\u{1F642}', ':???:': '\u{1F615}', ':cool:': '\u{1F60E}',
  ':evil:': '\u{1F47F}', ':grin:': '\u{1F600}', ':idea:': '\u{1F4A1}', ':oops:': '\u{1F633}', ':razz:': '\u{1F61B}',
  ':wink:': '\u{1F609}', ':cry:': '\u{1F625}', ':eek:': '\u{1F62E}', ':lol:': '\u{1F606}', ':mad:': '\u{1F621}',
  ':sad:': '\u{1F641}', '8-)': '\u{1F60E}', '8-O': '\u{1F62F}', ':-(': '\u{1F641}', ':-)': '\u{1F642}',
  ':-?': '\u{1F615}', ':-D': '\u{1F600}', ':-P': '\u{1F61B}', ':-o': '\u{1F62E}', ':-x': '\u{1F621}',
  ':-|': '\u{1F610}', ';-)': '\u{1F609}', '8O': '\u{1F62F}', ':(': '\u{1F641}', ':)': '\u{1F642}', ':?': '\u{1F615}',
  ':D': '\u{1F600}', ':P': '\u{1F61B}', ':o': '\u{1F62E}', ':x': '\u{1F621}', ':|': '\u{1F610}', ';)': '\u{1F609}',
  ':!:': '\u2757', ':?:': '\u2753',
};
// A smiley stands alone: a space (newlines included) or the start before it, a space or the end after it.
const SMILEY_ALTERNATIVES = Object.keys(SMILIES)
  .sort((a, b) => b.length - a.length)
  .map(escapeRegExp)
  .join('|');
const SMILEY_RE = new RegExp(`(?<=${SPACE}|^)(?:${SMILEY_ALTERNATIVES})(?=${SPACE}|$)`, 'g');
/**
 * Whether a smiley could stand somewhere: every smiley starts with ":", ";" or "8", and SMILEY_RE wants the
 * start of a piece between tags (the start, or after a tag's ">"), or a space, a tab, a newline, a no-break
 * space or "&nbsp;" (ending in ";") right before it, and a smiley's text from there. Three indexOf walks
 * instead of trying the smiley alternatives at every character ("post 8" is no smiley: "8" alone is none).
 */
export function maySmile(text: string): boolean {
  for (const first of SMILEY_FIRST_CHARACTERS) {
    for (let at = text.indexOf(first); at >= 0; at = text.indexOf(first, at + 1)) {
      if (at > 0) {
        const before = text.charCodeAt(at - 1);
        if (before !== 32 && before !== 10 && before !== 9 && before !== 13 && before !== 0xa0 && before !== 59 && before !== 62) continue;
      }
      if (smileyStartsAt(text, at)) return true;
    }
  }
  return false;
}
const SMILEY_FIRST_CHARACTERS = [':', ';', '8'] as const;
const SMILEY_TEXTS = Object.keys(SMILIES);

/** Whether some smiley's text starts at `at` (what follows it is left to SMILEY_RE). */
function smileyStartsAt(text: string, at: number): boolean {
  for (let i = 0; i < SMILEY_TEXTS.length; i++) if (text.startsWith(SMILEY_TEXTS[i]!, at)) return true;
  return false;
}
const SMILEY_IGNORED = /^<(code|pre|style|script|textarea)[^>]*>/;

function escAttr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#039;');
}

/** convert_smilies: smileys outside tags (and outside code, pre, style, script, textarea) → emoji or image. */
function convertSmilies(text: string, siteUrl: string): string {
  if (!maySmile(text)) return text;
  const parts = text.split(/(<[^>]*>)/);
  let ignoring = '';
  let out = '';
  for (const part of parts) {
    let piece = part;
    if (ignoring === '') {
      const m = SMILEY_IGNORED.exec(piece);
      if (m) ignoring = m[1]!;
    }
    if (ignoring === '' && piece.length > 0 && piece[0] !== '<') {
      piece = piece.replace(SMILEY_RE, (smiley) => {
        const target = SMILIES[smiley]!;
        if (!/\.(?:jpe?g|jpe|gif|png|webp)$/i.test(target)) return target;
        const src = `${siteUrl.replace(/\/+$/, '')}/wp-includes/images/smilies/${target}`;
        return `<img src="${escAttr(src)}" alt="${escAttr(smiley)}" class="wp-smiley" style="height: 1em; max-height: 1em;" />`;
      });
    }
    if (ignoring !== '' && piece === `</${ignoring}>`) ignoring = '';
    out += piece;
  }
  return out;
}

/**
 * The attributes WordPress 6.1 adds to images and iframes in content: decoding="async" on every <img> with a
 * double-quoted src, loading="lazy" on <img>/<iframe> with src, width and height (not on embed fallbacks).
 * Images of attachments (class wp-image-N) also get srcset/sizes in WordPress; that needs the media library
 * and is not done here.
 */
function addMediaAttributes(html: string): string {
  if (!html.includes('<img') && !html.includes('<iframe')) return html;
  return html.replace(new RegExp(`<(img|iframe)${WS}[^>]+>`, 'g'), (tag, name: string) => {
    let out = tag;
    const sized = out.includes(' src="') && out.includes(' width="') && out.includes(' height="');
    if (name === 'img') {
      if (sized && !out.includes(' loading=')) out = out.replace('<img', '<img loading="lazy"');
      if (!out.includes(' decoding=') && out.includes(' src="')) out = out.replace('<img ', '<img decoding="async" ');
    } else if (sized && !out.includes(' loading=') && !out.includes(' data-secret="')) {
      out = out.replace('<iframe', '<iframe loading="lazy"');
    }
    return out;
  });
}

// ---------------------------------------------------------------------------------------------------------
// Content, title, excerpt

// Rendering is deterministic, and the same texts are rendered again (a post's other variants, a post whose
// other fields changed, its revisions), so results are memoised: one table per kind of rendering and set of
// options, keyed by the raw text itself. A string keeps its hash once computed, so a text held by a document
// is hashed once, rather than copied into a longer key and hashed again on every call. Very large inputs are
// not kept.
const MEMO_GENERATION = 1000;
const MEMO_MAX_INPUT = 200_000;
const MEMO_TABLES = 64;
const memoTables = new Map<string, RenderMemo>();

/**
 * A bounded memo in two generations: entries go into the current one; when it is full it becomes the previous
 * one (the one before is dropped whole), and an entry found in the previous one moves up. No eviction walks the
 * map (deleting the oldest entry of one Map leaves a gap that finding the next oldest walks over).
 */
class RenderMemo {
  private current = new Map<string, string>();
  private previous = new Map<string, string>();

  get(raw: string): string | undefined {
    const hit = this.current.get(raw);
    if (hit !== undefined) return hit;
    const old = this.previous.get(raw);
    return old === undefined ? undefined : this.put(raw, old);
  }

  put(raw: string, value: string): string {
    if (raw.length > MEMO_MAX_INPUT) return value;
    if (this.current.size >= MEMO_GENERATION) {
      this.previous = this.current;
      this.current = new Map();
    }
    this.current.set(raw, value);
    return value;
  }
}

function memoTable(kind: string): RenderMemo {
  let table = memoTables.get(kind);
  if (table === undefined) {
    if (memoTables.size >= MEMO_TABLES) memoTables.clear();
    memoTables.set(kind, (table = new RenderMemo()));
  }
  return table;
}

/** The options as a short key: a flag, the shortcode names (JSON) or "-", NUL, then the site URL. */
function optionsKey(options: RenderOptions): string {
  return `${options.smilies === false ? 0 : 1}${options.shortcodes ? JSON.stringify(options.shortcodes) : '-'}\u0000${options.siteUrl ?? ''}`;
}

export interface RenderOptions {
  /** Site URL (for the two smilies that are images). Default "" (a root-relative path). */
  siteUrl?: string;
  /** Whether smilies become emoji/images (the use_smilies option, on by default). */
  smilies?: boolean;
  /** Registered shortcode names. Default: DEFAULT_SHORTCODES. */
  shortcodes?: readonly string[];
}

export interface RenderContentOptions extends RenderOptions {
  /**
   * Full-post view of a theme (not what the REST API does): the first `<!--more-->` becomes
   * `<span id="more-ID"></span>` (and `<!--noteaser-->` drops the part before it).
   */
  more?: { postId: number; /** 1-based page of a paginated post (default 1). */ page?: number };
}

const MORE_TAG = /<!--more(.*?)?-->/;

/** The post's text up to `<!--more-->` (the teaser), or all of it; core/more block delimiters removed. */
function splitAtMore(content: string): { teaser: string; rest: string | null } {
  const m = MORE_TAG.exec(content);
  if (!m) return { teaser: content, rest: null };
  let text = content;
  if (text.includes('<!-- wp:more ')) text = text.replace(/<!-- \/?wp:more(.*?) -->/g, '');
  const marker = m[0];
  const at = text.indexOf(marker);
  return { teaser: text.slice(0, at), rest: text.slice(at + marker.length) };
}

/**
 * The pages of a post split at `<!--nextpage-->` (newlines around the marker and core/nextpage block
 * delimiters removed, a marker at the very start ignored), as WordPress sets them up for display.
 */
export function splitPages(content: string): string[] {
  if (!content.includes('<!--nextpage-->')) return [content];
  let text = content;
  text = replaceAll(text, '\n<!--nextpage-->\n', '<!--nextpage-->');
  text = replaceAll(text, '\n<!--nextpage-->', '<!--nextpage-->');
  text = replaceAll(text, '<!--nextpage-->\n', '<!--nextpage-->');
  text = replaceAll(replaceAll(text, '<!-- wp:nextpage -->', ''), '<!-- /wp:nextpage -->', '');
  if (text.startsWith('<!--nextpage-->')) text = text.slice('<!--nextpage-->'.length);
  return text.split('<!--nextpage-->');
}

/** The `the_content` filter chain applied to a string. */
function theContent(raw: string, options: RenderOptions): string {
  const blocks = hasBlocks(raw);
  return afterTexturize(texturize(blocks ? stripBlockDelimiters(raw) : raw, options), !blocks, options);
}

/** The rest of `the_content` once the text is texturized: paragraphs (classic content only) and the smaller filters. */
function afterTexturize(texturized: string, paragraphs: boolean, options: RenderOptions): string {
  let html = paragraphs ? autop(texturized) : texturized;
  html = shortcodeUnautop(html, options.shortcodes ?? DEFAULT_SHORTCODES);
  html = addMediaAttributes(html);
  html = capitalPDangit(html);
  if (options.smilies !== false) html = convertSmilies(html, options.siteUrl ?? '');
  return html;
}

/** content.rendered of a post whose stored content is `raw` (as the REST API returns it). */
export function renderContent(raw: string, options: RenderContentOptions = {}): string {
  const table = memoTable(`c${options.more ? `${options.more.postId}|${options.more.page ?? 1}` : ''}|${optionsKey(options)}`);
  return table.get(raw) ?? table.put(raw, renderContentUncached(raw, options));
}

function renderContentUncached(raw: string, options: RenderContentOptions): string {
  let source = raw;
  if (options.more) {
    const pages = splitPages(raw);
    const page = Math.min(Math.max(1, options.more.page ?? 1), pages.length);
    source = pages[page - 1]!;
    const { teaser, rest } = splitAtMore(source);
    if (rest !== null) {
      // <!--noteaser--> hides the teaser in the full view (on the first page of a paginated post).
      const keepTeaser = !(raw.includes('<!--noteaser-->') && (pages.length === 1 || page === 1));
      source = (keepTeaser ? teaser : '') + `<span id="more-${options.more.postId}"></span>` + rest;
    }
  }
  return theContent(source, options);
}

export interface RenderTitleOptions {
  /** A private post's title gets the "Private: " prefix in the REST API. */
  private?: boolean;
}

/** title.rendered: texturized, bare "&" escaped, trimmed; never wrapped in paragraphs. */
export function renderTitle(raw: string, options: RenderTitleOptions = {}): string {
  const title = options.private ? `Private: ${raw}` : raw;
  return replaceAll(phpTrim(convertChars(texturize(title))), 'Wordpress', 'WordPress');
}

/** PHP strip_tags-like removal of tags and comments (script/style elements removed with their text). */
export function stripAllTags(html: string): string {
  return phpTrim(stripTagsLikePhp(mayHoldScriptOrStyle(html) ? html.replace(SCRIPT_OR_STYLE_ELEMENT, '') : html));
}

const SCRIPT_OR_STYLE_ELEMENT = /<(script|style)[^>]*?>[\s\S]*?<\/\1>/gi;

/** Whether "<script" or "<style" (in any ASCII case) occurs: the element pattern cannot match otherwise. */
function mayHoldScriptOrStyle(html: string): boolean {
  for (let lt = html.indexOf('<'); lt >= 0; lt = html.indexOf('<', lt + 1)) {
    const c = html.charCodeAt(lt + 1) | 0x20; // ASCII lower case
    if (c !== 0x73) continue; // s
    const name = html.slice(lt + 1, lt + 7).toLowerCase();
    if (name === 'script' || name.startsWith('style')) return true;
  }
  return false;
}

/** Removes registered shortcodes (with any enclosed content); "[[name]]" escapes become "[name]". */
export function stripShortcodes(content: string, registered: readonly string[] = DEFAULT_SHORTCODES): string {
  const names = shortcodesIn(content, registered, false);
  if (names.length === 0) return content;
  const alt = names.map(escapeRegExp).join('|');
  const re = new RegExp(`\\[(\\[?)(${alt})${shortcodeBodySource(2)}(\\]?)`, 'g');
  // "[[name]]" is an escaped shortcode: it loses one pair of brackets instead of disappearing.
  return content.replace(re, (whole, open: string, _name, close: string) =>
    open === '[' && close === ']' ? whole.slice(1, -1) : open + close,
  );
}

/** The shortcode grammar after the name: attributes, then "/]", or "]" with optional content and "[/name]". */
function shortcodeBodySource(nameGroup: number): string {
  return (
    `(?![\\w-])[^\\]\\/]*(?:\\/(?!\\])[^\\]\\/]*)*?` +
    `(?:\\/\\]|\\](?:[^\\[]*(?:\\[(?!\\/\\${nameGroup}\\])[^\\[]*)*\\[\\/\\${nameGroup}\\])?)`
  );
}

const unautopPatterns = new Map<string, RegExp>();

/** Whether "[" is followed by a registered name somewhere: what the unautop pattern needs to match at all. */
function mayOpenShortcode(html: string, registered: readonly string[]): boolean {
  for (let open = html.indexOf('['); open >= 0; open = html.indexOf('[', open + 1)) {
    for (let i = 0; i < registered.length; i++) if (html.startsWith(registered[i]!, open + 1)) return true;
  }
  return false;
}

/** Unwraps a registered shortcode that autop put alone in a paragraph (WordPress's shortcode_unautop). */
export function shortcodeUnautop(html: string, registered: readonly string[] = DEFAULT_SHORTCODES): string {
  if (registered.length === 0 || !mayOpenShortcode(html, registered) || !html.includes('<p>')) return html;
  const key = registered.join('\u0000');
  let re = unautopPatterns.get(key);
  if (!re) {
    const alt = registered.map(escapeRegExp).join('|');
    re = new RegExp(`<p>${SPACE}*(\\[(${alt})${shortcodeBodySource(2)})${SPACE}*<\\/p>`, 'g');
    if (unautopPatterns.size > 16) unautopPatterns.clear();
    unautopPatterns.set(key, re);
  }
  return html.replace(re, '$1');
}

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

export const EXCERPT_LENGTH = 55;
export const EXCERPT_MORE = ' [&hellip;]';

/** The excerpt text WordPress generates from content: first 55 words of the rendered teaser, " [&hellip;]" when cut. */
export function generateExcerptText(rawContent: string, options: RenderOptions = {}): string {
  let text = splitAtMore(splitPages(rawContent)[0]!).teaser;
  text = stripShortcodes(text, options.shortcodes ?? DEFAULT_SHORTCODES);
  text = excerptBlocksOnly(text);
  return excerptWords(theContent(text, options));
}

/** The first 55 words of the excerpt's source once through `the_content`, with " [&hellip;]" when cut. */
function excerptWords(html: string): string {
  return leadingWordsJoined(stripAllTags(replaceAll(html, ']]>', ']]&gt;')), EXCERPT_LENGTH, EXCERPT_MORE);
}

/**
 * content.rendered and excerpt.rendered of one post: the same as renderContent and renderExcerpt (and memoised
 * with them), but a generated excerpt shares the work both would do on the same text when it can (see
 * renderBothUncached).
 */
export function renderContentAndExcerpt(
  rawContent: string,
  rawExcerpt: string,
  options: RenderOptions = {},
  /** False for a text unlikely to be rendered again soon: it is neither looked up nor kept. */
  memoise = true,
): { content: string; excerpt: string } {
  if ((options as RenderContentOptions).more) {
    return { content: renderContent(rawContent, options), excerpt: renderExcerpt(rawExcerpt, rawContent, options) };
  }
  if (!memoise) {
    return (
      (phpTrim(rawExcerpt) === '' ? renderBothUncached(rawContent, options) : null) ?? {
        content: renderContentUncached(rawContent, options),
        excerpt: renderExcerptUncached(rawExcerpt, rawContent, options),
      }
    );
  }
  const contentTable = memoTable(`c|${optionsKey(options)}`);
  const explicit = phpTrim(rawExcerpt) !== '';
  const excerptTable = memoTable(`${explicit ? 'x' : 'g'}${optionsKey(options)}`);
  const excerptKey = explicit ? rawExcerpt : rawContent;
  const content = contentTable.get(rawContent);
  const excerpt = excerptTable.get(excerptKey);
  if (content === undefined && excerpt === undefined && !explicit) {
    const both = renderBothUncached(rawContent, options);
    if (both !== null) {
      contentTable.put(rawContent, both.content);
      excerptTable.put(rawContent, both.excerpt);
      return both;
    }
  }
  return {
    content: content ?? contentTable.put(rawContent, renderContentUncached(rawContent, options)),
    excerpt: excerpt ?? excerptTable.put(excerptKey, renderExcerptUncached(rawExcerpt, rawContent, options)),
  };
}

/**
 * The content and its generated excerpt together, when the excerpt's source is the content itself: one page,
 * no `<!--more-->`, no shortcode to strip, and (for block content) only top-level blocks that excerpts keep,
 * none with inner blocks, so that the excerpt's source, once its blocks are rendered, is exactly what
 * content.rendered texturizes. Both then texturize the same string: it is done once. Classic content goes
 * through `the_content` identically for both: content.rendered is the excerpt's source as is. Null otherwise
 * (the two are then rendered apart).
 */
function renderBothUncached(raw: string, options: RenderOptions): { content: string; excerpt: string } | null {
  if (raw.includes('<!--nextpage-->') || MORE_TAG.test(raw)) return null;
  if (shortcodesIn(raw, options.shortcodes ?? DEFAULT_SHORTCODES, false).length > 0) return null;
  if (!hasBlocks(raw)) {
    const content = theContent(raw, options);
    return { content, excerpt: excerptHtml(excerptWords(content), options) };
  }
  const blocks = parseBlocks(raw);
  let source = '';
  for (const block of blocks) {
    if (!isExcerptBlock(block.name) || block.innerBlocks.length > 0) return null;
    source += renderBlock(block);
  }
  // The excerpt's `the_content` would strip block delimiters again (and skip paragraphs) if some were left.
  if (hasBlocks(source)) return null;
  const texturized = texturize(source, options);
  return {
    content: afterTexturize(texturized, false, options),
    excerpt: excerptHtml(excerptWords(afterTexturize(texturized, true, options)), options),
  };
}

/**
 * excerpt.rendered: the explicit excerpt when it has non-blank text, otherwise one generated from the content;
 * then texturized, smilies, bare "&" escaped, paragraphs (`<p>…</p>\n`); "" when both are empty.
 */
export function renderExcerpt(rawExcerpt: string, rawContent: string, options: RenderOptions = {}): string {
  const explicit = phpTrim(rawExcerpt) !== '';
  const table = memoTable(`${explicit ? 'x' : 'g'}${optionsKey(options)}`);
  const raw = explicit ? rawExcerpt : rawContent;
  return table.get(raw) ?? table.put(raw, renderExcerptUncached(rawExcerpt, rawContent, options));
}

function renderExcerptUncached(rawExcerpt: string, rawContent: string, options: RenderOptions): string {
  return excerptHtml(phpTrim(rawExcerpt) === '' ? generateExcerptText(rawContent, options) : rawExcerpt, options);
}

/** excerpt.rendered of the excerpt's text (explicit, or generated from the content). */
function excerptHtml(excerptText: string, options: RenderOptions): string {
  let text = texturize(excerptText, options);
  if (options.smilies !== false) text = convertSmilies(text, options.siteUrl ?? '');
  text = convertChars(text);
  text = autop(text);
  text = shortcodeUnautop(text, options.shortcodes ?? DEFAULT_SHORTCODES);
  return addMediaAttributes(text);
}
