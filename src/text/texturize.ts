/** WordPress's wptexturize: curly quotes, primes, dashes, ellipses and "×", outside code, tags and shortcodes. */

import { phpTrim } from './phpTrim';
import { DEFAULT_SHORTCODES, shortcodesIn } from './shortcodes';
import { END, escapeBareAmpersands, escapeRegExp, replaceAll, SPACE } from './textPatterns';

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
  "'tain't",
  "'twere",
  "'twas",
  "'tis",
  "'twill",
  "'til",
  "'bout",
  "'nuff",
  "'round",
  "'cause",
  "'em",
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
function primesAndClosingQuotes(
  text: string,
  needle: "'" | '"',
  prime: string,
  openFlag: string,
  close: string,
): string {
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
  for (let i = 0; i < STATIC_REPLACEMENTS.length; i++)
    s = replaceAll(s, STATIC_REPLACEMENTS[i]![0], STATIC_REPLACEMENTS[i]![1]);
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
