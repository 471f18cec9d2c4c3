/** WordPress's wpautop: paragraphs and line breaks from blank lines and newlines, around block-level tags. */

import { phpTrim } from './phpTrim';
import { replaceAll, WS } from './textPatterns';

const BLOCK_TAGS =
  '(?:table|thead|tfoot|caption|col|colgroup|tbody|tr|td|th|div|dl|dd|dt|ul|ol|li|pre|form|map|area|blockquote|address|math|style|p|h[1-6]|hr|fieldset|legend|section|article|aside|hgroup|header|footer|nav|figure|figcaption|details|menu|summary)';

const RE_BLOCK_OPEN = new RegExp(`(<${BLOCK_TAGS}(?:${WS}|[\\/>]))`, 'g');
const RE_BLOCK_CLOSE = new RegExp(`(<\\/${BLOCK_TAGS}>)`, 'g');
const RE_BLOCK_TAG_ALONE_IN_P = new RegExp(`<p>${WS}*(<\\/?${BLOCK_TAGS}[^>]*>)${WS}*<\\/p>`, 'g');
const RE_P_BEFORE_BLOCK_TAG = new RegExp(`<p>${WS}*(<\\/?${BLOCK_TAGS}[^>]*>)`, 'g');
const RE_END_P_AFTER_BLOCK_TAG = new RegExp(`(<\\/?${BLOCK_TAGS}[^>]*>)${WS}*<\\/p>`, 'g');
const RE_BR_AFTER_BLOCK_TAG = new RegExp(`(<\\/?${BLOCK_TAGS}[^>]*>)${WS}*<br \\/>`, 'g');
const RE_BR_BEFORE_SOME_BLOCK_TAGS = new RegExp(
  `<br \\/>(${WS}*<\\/?(?:p|li|div|dl|dd|dt|th|pre|td|ul|ol)[^>]*>)`,
  'g',
);

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
const PLAIN_INLINE_TAGS = new Set([
  'a',
  'abbr',
  'b',
  'bdi',
  'bdo',
  'cite',
  'code',
  'del',
  'dfn',
  'em',
  'i',
  'img',
  'ins',
  'kbd',
  'mark',
  'q',
  's',
  'samp',
  'small',
  'span',
  'strong',
  'sub',
  'sup',
  'time',
  'u',
  'var',
]);

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
  if (text.includes('</div>') || text.includes('</address>') || text.includes('</form>'))
    text = text.replace(RE_P_CLOSED_BY_DIV, '<p>$1</p></$2>');
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
