/**
 * The slugs an item of a post type tries, in order, until one is free (claimed in the event store): shared by
 * content, media and menu items, so it lives apart from their operations.
 */
import type { PostType } from './events';

const FEED_SLUGS = new Set(['feed', 'rdf', 'rss', 'rss2', 'atom', 'embed']);

/**
 * base, base-2, base-3, …; a slug that would clash with feed or pagination URLs starts at -2. Any post type's
 * (menu items' too); only pages have the pagination rule.
 */
export function* slugCandidates(base: string, postType: PostType | 'nav_menu_item'): Iterable<string> {
  const reserved = FEED_SLUGS.has(base) || (postType === 'page' && /^(page)?\d+$/.test(base));
  if (!reserved) yield base;
  for (let n = 2; ; n++) yield `${base}-${n}`;
}
