/**
 * The pattern pieces and small string helpers the renderers share. Regular expressions spell whitespace as WS
 * (space, \t, \n, \v, \f, \r): PHP's `\s`, narrower than JavaScript's, which would also match non-breaking and
 * other Unicode spaces.
 */

export const WS = '[ \\t\\n\\x0B\\f\\r]';
/** What WordPress counts as a space around quotes, dashes and smilies. */
export const SPACE = '(?:[\\r\\n\\t ]|\\u00a0|&nbsp;)';
/** End of a text chunk: the end, or just before a final newline (PCRE "$" and "\Z"). */
export const END = '(?=\\n?(?![\\s\\S]))';

const ENTITY_SAFE_AMP = /&(?!#(?:\d+|x[a-f0-9]+);|[a-z1-4]{1,8};)/gi;

/** Escapes every "&" that does not already start an entity (what texturize does to text and tags). */
export function escapeBareAmpersands(text: string): string {
  return text.includes('&') ? text.replace(ENTITY_SAFE_AMP, '&#038;') : text;
}

export function replaceAll(s: string, search: string, replacement: string): string {
  return s.includes(search) ? s.split(search).join(replacement) : s;
}

export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}
