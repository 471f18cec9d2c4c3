/**
 * What WordPress does to a comment's fields when it saves them (its `pre_comment_*` filters), as pure functions:
 * - the text, for a writer without `unfiltered_html`, keeps only the basic inline tags (a, abbr, acronym, b,
 *   blockquote, cite, code, del, em, i, q, s, strike, strong, with a few attributes), as WordPress's comment filter
 *   does, and for everyone links to other hosts get `rel="nofollow ugc"` (merged into a `rel` they have);
 * - the author's name is plain text, HTML-escaped ("A & B" is stored as "A &amp; B"), as WordPress stores names;
 * - the email and URL are trimmed (their arguments already checked and cleaned them).
 */
import { escapeHtmlOnce } from '../settings/sanitize';
import { filterBasicHtml, sanitizeTermName } from '../terms/sanitize';
import type { CommentFields } from './events';
import { phpTrim } from '../../text/phpTrim';

/** A comment's text as stored: filtered unless the writer may post unfiltered HTML, then links marked. */
export function storedCommentText(text: string, unfiltered: boolean, siteUrl: string): string {
  return withUgcRel(unfiltered ? text : filterBasicHtml(text), hostOf(siteUrl));
}

/** The author fields as stored. */
export function storedAuthorFields<
  T extends Partial<Pick<CommentFields, 'author_name' | 'author_email' | 'author_url'>>,
>(fields: T): T {
  const out = { ...fields };
  if (out.author_name !== undefined) out.author_name = sanitizeTermName(out.author_name);
  if (out.author_email !== undefined) out.author_email = phpTrim(out.author_email);
  if (out.author_url !== undefined) out.author_url = phpTrim(out.author_url);
  return out;
}

function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return null;
  }
}

interface Attribute {
  name: string;
  value: string;
  /** Written without a value (`<a download>`). */
  valueless: boolean;
}

/** The attributes of a tag's inside, first of each name kept. */
function attributesOf(inside: string): Map<string, Attribute> {
  const found = new Map<string, Attribute>();
  const pattern = /([_a-zA-Z][-_a-zA-Z0-9:.]*)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/g;
  for (const m of inside.matchAll(pattern)) {
    const name = m[1]!.toLowerCase();
    if (found.has(name)) continue;
    const value = m[2] ?? m[3] ?? m[4];
    found.set(name, { name, value: value ?? '', valueless: value === undefined });
  }
  return found;
}

/**
 * WordPress's comment link rule: every `<a …>` gets `rel="nofollow ugc"`, except an http(s) link to the site's own
 * host. A link with a `rel` keeps its values and gains the two (its attributes then rewritten double-quoted).
 */
export function withUgcRel(html: string, siteHost: string | null): string {
  return html.replace(/<a (.+?)>/gi, (_whole, inside: string) => {
    const attributes = attributesOf(inside);
    const href = attributes.get('href');
    if (href && siteHost !== null && /^https?:/i.test(href.value.trim()) && hostOf(href.value.trim()) === siteHost)
      return `<a ${inside}>`;
    const rel = attributes.get('rel');
    if (!rel) return `<a ${inside} rel="nofollow ugc">`;
    const values = [...new Set([...rel.value.split(' ').map((part) => part.trim()), 'nofollow', 'ugc'])];
    attributes.delete('rel');
    const kept = [...attributes.values()]
      .map((a) => (a.valueless ? a.name : `${a.name}="${escapeHtmlOnce(a.value)}"`))
      .join(' ');
    return `<a ${kept} rel="${escapeHtmlOnce(values.join(' '))}">`;
  });
}
