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

/** PHP trim()'s default character set. */
function phpTrim(s: string): string {
  return s.replace(/^[ \t\n\r\0\x0B]+|[ \t\n\r\0\x0B]+$/g, '');
}

function replaceAll(s: string, search: string, replacement: string): string {
  return s.includes(search) ? s.split(search).join(replacement) : s;
}

// ---------------------------------------------------------------------------------------------------------
// Shortcodes (names only: palimpsest does not run them, but they shape texturize and excerpts)

/** Shortcodes a stock WordPress 6.1 registers. */
export const DEFAULT_SHORTCODES: readonly string[] = ['wp_caption', 'caption', 'gallery', 'playlist', 'audio', 'video', 'embed'];

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\\/-]/g, '\\$&');
}

/** Registered shortcode names that occur as "[name" (or also "[/name" when `closers`) in the text. */
function shortcodesIn(text: string, registered: readonly string[], closers = true): string[] {
  if (!text.includes('[') || registered.length === 0) return [];
  const seen = new Set<string>();
  const re = closers ? /\[\/?([^<>&\/\[\]\x00-\x20=]+)/g : /\[([^<>&\/\[\]\x00-\x20=]+)/g;
  for (const m of text.matchAll(re)) seen.add(m[1]!);
  return registered.filter((n) => seen.has(n));
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

// Plain substitutions, applied one after another.
const STATIC_REPLACEMENTS: ReadonlyArray<readonly [string, string]> = [
  ['...', '&#8230;'],
  ['``', OPEN_DOUBLE],
  ["''", CLOSE_DOUBLE],
  [' (tm)', ' &#8482;'],
  // Elisions that start with an apostrophe rather than an opening quote.
  ...["'tain't", "'twere", "'twas", "'tis", "'twill", "'til", "'bout", "'nuff", "'round", "'cause", "'em"].map(
    (w) => [w, w.replace(/'/g, APOSTROPHE)] as const,
  ),
];

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

const TIMES_HINT = /x(?<=\dx)\d/;
// 9x9 → 9×9, but a leading "0x" needs more digits (hexadecimal such as 0x1F stays).
const TIMES = /\b(0[\d.,]+|[1-9][\d.,]*)x(\d[\d.,]*)\b/g;

/** Typography of one text chunk that is outside tags and outside no-texturize elements. */
function texturizeText(chunk: string): string {
  let s = chunk;
  // Each static replacement needs one of these characters; most text has none of the rarer ones.
  if (s.includes('.') || s.includes('`') || s.includes("'") || s.includes('(')) {
    for (const [from, to] of STATIC_REPLACEMENTS) s = replaceAll(s, from, to);
  }
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
  if (TIMES_HINT.test(s)) s = s.replace(TIMES, '$1&#215;$2');
  return escapeBareAmpersands(s);
}

// An HTML comment (to "-->" or the end), or "<" up to the next ">" (or the end).
const TEXTURIZE_HTML = '<(?:(?=!--)!(?:-(?!->)[^-]*)*(?:-->)?|[^>]*>?)';
const TEXTURIZE_SPLIT = new RegExp(`(${TEXTURIZE_HTML})`);

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
  if (text === '' || text === '0') return text;
  const found = shortcodesIn(text, options.shortcodes ?? DEFAULT_SHORTCODES);
  const shortcodeSource = found.length ? shortcodeTokenSource(found) : '';
  const splitter = shortcodeSource ? new RegExp(`(${TEXTURIZE_HTML}|${shortcodeSource})`) : TEXTURIZE_SPLIT;
  const wholeShortcode = shortcodeSource ? new RegExp(`^${shortcodeSource}$`) : null;
  const tagStack: string[] = [];
  const shortcodeStack: string[] = [];
  const parts = text.split(splitter);
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (part === '') continue;
    const first = part[0];
    if (first === '<') {
      if (part.startsWith('<!--')) continue;
      parts[i] = escapeBareAmpersands(part);
      trackElement(part, tagStack, NO_TEXTURIZE_TAGS);
    } else if (phpTrim(part) === '') {
      continue;
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

// Tokens of HTML: comments, CDATA sections, and tags (each possibly unterminated at the end of the text).
const HTML_TOKEN =
  /(<(?:(?=!--)!(?:-(?!->)[^-]*)*(?:-->)?|(?=!\[CDATA\[)!\[CDATA\[[^\]]*(?:\](?!\]>)[^\]]*)*(?:\]\]>)?|[^>]*>?))/;

/** Replaces `search` inside tags and comments only (text between tags is left as is). */
function replaceInsideTags(text: string, search: string, replacement: string): string {
  const parts = text.split(HTML_TOKEN);
  // With one capture group, odd indexes are the tokens.
  for (let i = 1; i < parts.length; i += 2) parts[i] = replaceAll(parts[i]!, search, replacement);
  return parts.join('');
}

const NEWLINE_MARK = ' <!-- wpnl --> ';
const PRESERVED_NEWLINE = '<WPPreserveNewline />';

/**
 * WordPress's `wpautop`: blank lines make paragraphs (`<p>…</p>\n`), single newlines become `<br />\n`
 * (when `br`), block-level elements are not wrapped, and `<pre>` contents are kept byte for byte.
 */
export function autop(input: string, br = true): string {
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

  text = text.replace(new RegExp(`<br${WS}*\\/?>${WS}*<br${WS}*\\/?>`, 'g'), '\n\n');
  text = text.replace(RE_BLOCK_OPEN, '\n\n$1');
  text = text.replace(RE_BLOCK_CLOSE, '$1\n\n');
  text = text.replace(new RegExp(`(<hr${WS}*?\\/?>)`, 'g'), '$1\n\n');
  text = text.replace(/\r\n|\r/g, '\n');
  text = replaceInsideTags(text, '\n', NEWLINE_MARK);

  // Keep the children of these elements together so that they are not split into paragraphs.
  if (text.includes('<option')) {
    text = text.replace(new RegExp(`${WS}*<option`, 'g'), '<option');
    text = text.replace(new RegExp(`<\\/option>${WS}*`, 'g'), '</option>');
  }
  if (text.includes('</object>')) {
    text = text.replace(new RegExp(`(<object[^>]*>)${WS}*`, 'g'), '$1');
    text = text.replace(new RegExp(`${WS}*<\\/object>`, 'g'), '</object>');
    text = text.replace(new RegExp(`${WS}*(<\\/?(?:param|embed)[^>]*>)${WS}*`, 'g'), '$1');
  }
  if (text.includes('<source') || text.includes('<track')) {
    text = text.replace(new RegExp(`([<\\[](?:audio|video)[^>\\]]*[>\\]])${WS}*`, 'g'), '$1');
    text = text.replace(new RegExp(`${WS}*([<\\[]\\/(?:audio|video)[>\\]])`, 'g'), '$1');
    text = text.replace(new RegExp(`${WS}*(<(?:source|track)[^>]*>)${WS}*`, 'g'), '$1');
  }
  if (text.includes('<figcaption')) {
    text = text.replace(new RegExp(`${WS}*(<figcaption[^>]*>)`, 'g'), '$1');
    text = text.replace(new RegExp(`<\\/figcaption>${WS}*`, 'g'), '</figcaption>');
  }

  text = text.replace(/\n\n+/g, '\n\n');
  let wrapped = '';
  for (const para of text.split(new RegExp(`\\n${WS}*\\n`))) {
    if (para === '') continue;
    wrapped += '<p>' + para.replace(/^\n+|\n+$/g, '') + '</p>\n';
  }
  text = wrapped;

  text = text.replace(new RegExp(`<p>${WS}*<\\/p>`, 'g'), '');
  text = text.replace(/<p>([^<]+)<\/(div|address|form)>/g, '<p>$1</p></$2>');
  text = text.replace(RE_BLOCK_TAG_ALONE_IN_P, '$1');
  text = text.replace(/<p>(<li[^\n]+?)<\/p>/g, '$1');
  text = text.replace(/<p><blockquote([^>]*)>/gi, '<blockquote$1><p>');
  text = replaceAll(text, '</blockquote></p>', '</p></blockquote>');
  text = text.replace(RE_P_BEFORE_BLOCK_TAG, '$1');
  text = text.replace(RE_END_P_AFTER_BLOCK_TAG, '$1');

  if (br) {
    // Newlines inside script, style and svg elements must stay newlines.
    text = text.replace(/<(script|style|svg)[\s\S]*?<\/\1>/g, (m) => replaceAll(m, '\n', PRESERVED_NEWLINE));
    text = replaceAll(replaceAll(text, '<br>', '<br />'), '<br/>', '<br />');
    text = text.replace(new RegExp(`(?<!<br \\/>)${WS}*\\n`, 'g'), '<br />\n');
    text = replaceAll(text, PRESERVED_NEWLINE, '\n');
  }

  text = text.replace(RE_BR_AFTER_BLOCK_TAG, '$1');
  text = text.replace(RE_BR_BEFORE_SOME_BLOCK_TAGS, '$1');
  text = text.replace(new RegExp(`\\n<\\/p>${END}`), '</p>');

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

/** Splits serialised block content into blocks, with the same recovery from malformed input as WordPress. */
export function parseBlocks(document: string): ParsedBlock[] {
  const output: ParsedBlock[] = [];
  const stack: OpenBlock[] = [];
  const freeform = (html: string): ParsedBlock => ({ name: null, attrs: null, innerBlocks: [], innerContent: [html] });
  const newBlock = (ns: string | undefined, name: string, attrs: string | undefined): ParsedBlock => ({
    name: (ns ?? 'core/') + name,
    attrs: attrs ? attrs.replace(new RegExp(`${WS}+$`), '') : null,
    innerBlocks: [],
    innerContent: [],
  });
  const appendHtml = (block: ParsedBlock, html: string) => {
    if (!isEmptyPiece(html)) block.innerContent.push(html);
  };
  const addInner = (block: ParsedBlock, tokenStart: number, lastOffset: number) => {
    const parent = stack[stack.length - 1]!;
    parent.block.innerBlocks.push(block);
    appendHtml(parent.block, document.slice(parent.prevOffset, tokenStart));
    parent.block.innerContent.push(null);
    parent.prevOffset = lastOffset;
  };
  const closeTop = (endOffset: number | null) => {
    const top = stack.pop()!;
    appendHtml(top.block, endOffset === null ? document.slice(top.prevOffset) : document.slice(top.prevOffset, endOffset));
    if (top.leadingHtmlStart !== null) output.push(freeform(document.slice(top.leadingHtmlStart, top.tokenStart)));
    output.push(top.block);
  };

  let offset = 0;
  BLOCK_DELIMITER.lastIndex = 0;
  for (;;) {
    const m = BLOCK_DELIMITER.exec(document);
    if (!m) {
      if (stack.length === 0) {
        if (offset < document.length) output.push(freeform(document.slice(offset)));
      } else {
        // Unclosed blocks take the rest of the document (nested ones each, as WordPress does).
        while (stack.length) closeTop(null);
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
        output.push(freeform(document.slice(offset)));
        break;
      }
      if (stack.length === 1) closeTop(start);
      else {
        // Closing a nested block keeps its last piece even when it is "0" (only this path does).
        const top = stack.pop()!;
        top.block.innerContent.push(document.slice(top.prevOffset, start));
        addInner(top.block, top.tokenStart, end);
      }
    } else if (isVoid) {
      const block = newBlock(ns, name!, attrs);
      if (stack.length === 0) {
        if (leadingHtmlStart !== null) output.push(freeform(document.slice(leadingHtmlStart, start)));
        output.push(block);
      } else addInner(block, start, end);
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
/** Cheap pre-check: no smiley text anywhere means nothing to do. */
const SMILEY_ANYWHERE = new RegExp(SMILEY_ALTERNATIVES);
const SMILEY_IGNORED = /^<(code|pre|style|script|textarea)[^>]*>/;

function escAttr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#039;');
}

/** convert_smilies: smileys outside tags (and outside code, pre, style, script, textarea) → emoji or image. */
function convertSmilies(text: string, siteUrl: string): string {
  if (!SMILEY_ANYWHERE.test(text)) return text;
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

// Rendering is deterministic, and the same posts are rendered again and again (every listing), so results
// are memoised: a bounded map in insertion order, emptied oldest-first when full. Very large inputs are
// not kept.
const MEMO_ENTRIES = 4000;
const MEMO_MAX_INPUT = 200_000;
const memoTable = new Map<string, string>();

function memo(key: string, compute: () => string): string {
  const hit = memoTable.get(key);
  if (hit !== undefined) return hit;
  const value = compute();
  if (key.length <= MEMO_MAX_INPUT) {
    if (memoTable.size >= MEMO_ENTRIES) memoTable.delete(memoTable.keys().next().value!);
    memoTable.set(key, value);
  }
  return value;
}

function optionsKey(options: RenderOptions): string {
  return JSON.stringify([options.siteUrl ?? '', options.smilies !== false, options.shortcodes ?? null]);
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
  let html = blocks ? stripBlockDelimiters(raw) : raw;
  html = texturize(html, options);
  if (!blocks) html = autop(html);
  html = shortcodeUnautop(html, options.shortcodes ?? DEFAULT_SHORTCODES);
  html = addMediaAttributes(html);
  html = capitalPDangit(html);
  if (options.smilies !== false) html = convertSmilies(html, options.siteUrl ?? '');
  return html;
}

/** content.rendered of a post whose stored content is `raw` (as the REST API returns it). */
export function renderContent(raw: string, options: RenderContentOptions = {}): string {
  return memo(`c${optionsKey(options)}${options.more ? `|${options.more.postId}|${options.more.page ?? 1}` : ''}\u0000${raw}`, () =>
    renderContentUncached(raw, options),
  );
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
  return phpTrim(stripTagsLikePhp(html.replace(/<(script|style)[^>]*?>[\s\S]*?<\/\1>/gi, '')));
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

/** Unwraps a registered shortcode that autop put alone in a paragraph (WordPress's shortcode_unautop). */
export function shortcodeUnautop(html: string, registered: readonly string[] = DEFAULT_SHORTCODES): string {
  if (registered.length === 0 || !html.includes('<p>') || !html.includes('[')) return html;
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

/** Words of `text` as WordPress counts them for excerpts: tags removed, split on spaces, tabs and newlines. */
function words(text: string): string[] {
  return stripAllTags(text)
    .split(/[\n\r\t ]+/)
    .filter((w) => w !== '');
}

/** The number of words in `html` once tags are removed (for projections, e.g. reading time). */
export function wordCount(html: string): number {
  return words(html).length;
}

export const EXCERPT_LENGTH = 55;
export const EXCERPT_MORE = ' [&hellip;]';

/** The excerpt text WordPress generates from content: first 55 words of the rendered teaser, " [&hellip;]" when cut. */
export function generateExcerptText(rawContent: string, options: RenderOptions = {}): string {
  let text = splitAtMore(splitPages(rawContent)[0]!).teaser;
  text = stripShortcodes(text, options.shortcodes ?? DEFAULT_SHORTCODES);
  text = excerptBlocksOnly(text);
  text = theContent(text, options);
  text = replaceAll(text, ']]>', ']]&gt;');
  const all = words(text);
  return all.length > EXCERPT_LENGTH ? all.slice(0, EXCERPT_LENGTH).join(' ') + EXCERPT_MORE : all.join(' ');
}

/**
 * excerpt.rendered: the explicit excerpt when it has non-blank text, otherwise one generated from the content;
 * then texturized, smilies, bare "&" escaped, paragraphs (`<p>…</p>\n`); "" when both are empty.
 */
export function renderExcerpt(rawExcerpt: string, rawContent: string, options: RenderOptions = {}): string {
  const explicit = phpTrim(rawExcerpt) !== '';
  const key = `${explicit ? 'x' : 'g'}${optionsKey(options)}\u0000${explicit ? rawExcerpt : rawContent}`;
  return memo(key, () => renderExcerptUncached(rawExcerpt, rawContent, options));
}

function renderExcerptUncached(rawExcerpt: string, rawContent: string, options: RenderOptions): string {
  let text = phpTrim(rawExcerpt) === '' ? generateExcerptText(rawContent, options) : rawExcerpt;
  text = texturize(text, options);
  if (options.smilies !== false) text = convertSmilies(text, options.siteUrl ?? '');
  text = convertChars(text);
  text = autop(text);
  text = shortcodeUnautop(text, options.shortcodes ?? DEFAULT_SHORTCODES);
  return addMediaAttributes(text);
}
