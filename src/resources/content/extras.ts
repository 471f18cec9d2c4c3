/**
 * What presenting an item needs beyond its document, gathered from the site and the caller: a page's
 * ancestors (its permalink is under them), the unique slug its title would give and the caller's
 * `wp:action-*` relations (both only in edit context). Shared by every route that presents a live item.
 */
import type { Site } from '../../site';
import type { Actor } from '../../access/capabilities';
import { hasCap, postTypeCaps } from '../../access/capabilities';
import type { HandlerContext } from '../../rest/route';
import type { ContentDoc } from '../../../projections/content';
import { sanitizeSlug } from '../../text/slug';
import { ancestorPath, slugCandidates, slugScope } from './operations';
import type { PresentOptions } from './present';

export type ItemExtras = Pick<PresentOptions, 'parentPath' | 'generatedSlug' | 'actions' | 'withoutLinks'>;

export async function itemExtras(
  site: Site,
  ctx: HandlerContext,
  doc: ContentDoc,
  context: 'view' | 'edit' | 'embed',
  options: { withoutLinks?: boolean } = {},
): Promise<ItemExtras> {
  const edit = context === 'edit';
  const [parentPath, generatedSlug] = await Promise.all([
    doc.type === 'page' && doc.parent > 0 ? ancestorPath(site, doc.parent, pageCache(ctx)) : '',
    edit ? uniqueTitleSlug(site, doc) : undefined,
  ]);
  const extras: ItemExtras = { parentPath };
  if (generatedSlug !== undefined) extras.generatedSlug = generatedSlug;
  if (options.withoutLinks) extras.withoutLinks = true;
  else if (edit) extras.actions = availableActions(ctx.actor, doc.type);
  return extras;
}

/** The pages read while presenting one request (a list's pages often share ancestors). */
function pageCache(ctx: HandlerContext): Map<number, Promise<ContentDoc | null>> {
  let cache = ctx.memo.get('present:pages') as Map<number, Promise<ContentDoc | null>> | undefined;
  if (!cache) {
    cache = new Map();
    ctx.memo.set('present:pages', cache);
  }
  return cache;
}

/**
 * WordPress's `generated_slug`: the slug the title would give (the id for no title), made unique among the
 * other items of the type (a page's among its siblings) as if it were being published now, whatever the
 * item's own slug.
 */
async function uniqueTitleSlug(site: Site, doc: ContentDoc): Promise<string> {
  const scope = slugScope(doc.type, doc.parent);
  for (const candidate of slugCandidates(sanitizeSlug(doc.title) || String(doc.id), doc.type)) {
    const owner = await site.claims.ownerOf(scope, candidate);
    if (owner === null || owner === doc.id) return candidate;
  }
  throw new Error('unreachable: slug candidates never end');
}

/**
 * The `wp:action-*` relations WordPress adds in edit context: what the caller may do with items of the type
 * (publish, post unfiltered HTML, make sticky, choose the author, create and assign terms).
 */
function availableActions(actor: Actor | null, postType: ContentDoc['type']): string[] {
  const caps = postTypeCaps(postType === 'page' ? 'pages' : 'posts');
  const can = (cap: string) => hasCap(actor, cap);
  const actions: string[] = [];
  if (can(caps.publish_posts)) actions.push('publish');
  if (can('unfiltered_html')) actions.push('unfiltered-html');
  if (postType === 'post' && can(caps.edit_others_posts) && can(caps.publish_posts)) actions.push('sticky');
  if (can(caps.edit_others_posts)) actions.push('assign-author');
  if (postType === 'post') {
    // Creating a term of a hierarchical taxonomy needs manage_categories; a tag, only the right to assign one.
    if (can('manage_categories')) actions.push('create-categories');
    if (can('edit_posts')) actions.push('assign-categories', 'create-tags', 'assign-tags');
  }
  return actions;
}
