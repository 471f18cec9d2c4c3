/**
 * Shortcodes, by name only: palimpsest does not run them, but they shape texturize and excerpts. Finding the
 * registered names in a text, stripping them (for excerpts) and unwrapping those autop put alone in a paragraph.
 */

import { escapeRegExp, SPACE } from './textPatterns';

/** Shortcodes a stock WordPress 6.1 registers. */
export const DEFAULT_SHORTCODES: readonly string[] = [
  'wp_caption',
  'caption',
  'gallery',
  'playlist',
  'audio',
  'video',
  'embed',
];

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
