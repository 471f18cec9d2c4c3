/**
 * What presenting an item needs beyond its document, gathered from the site and the caller: a page's
 * ancestors (its permalink is under them), the unique slug its title would give and the caller's
 * `wp:action-*` relations (both only in edit context). Shared by every route that presents a live item.
 */
import type { Site } from '../../site';
import type { Actor } from '../../access/capabilities';
import { capsOfPostType, hasCap } from '../../access/capabilities';
import type { HandlerContext } from '../../rest/route';
import type { ContentDoc } from '../../../projections/content';
import { sanitizeSlug } from '../../text/slug';
import { ancestorPath } from './operations';
import { slugCandidates } from './slugCandidates';
import type { PresentOptions } from './present';

export type ItemExtras = Pick<PresentOptions, 'parentPath' | 'generatedSlug' | 'actions' | 'withoutLinks'>;

const NO_EXTRAS: ItemExtras = Object.freeze({ parentPath: '' });

/**
 * The extras of an item that needs none looked up (not in edit context, not a page under another, with its
 * links): most items of a list. Null when itemExtras has work to do.
 */
export function plainItemExtras(
  doc: ContentDoc,
  context: 'view' | 'edit' | 'embed',
  options: { withoutLinks?: boolean } = {},
): ItemExtras | null {
  return context === 'edit' || options.withoutLinks || (doc.type === 'page' && doc.parent > 0) ? null : NO_EXTRAS;
}

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
    // A reusable block is not viewable: it has no generated slug to show.
    edit && doc.type !== 'wp_block' ? uniqueTitleSlug(site, ctx, doc) : undefined,
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
 * item's own slug. WordPress computes it at every read, so it follows other items taking or freeing the slug.
 *
 * The items presented by one request are resolved together: their candidates are looked up in the read
 * model in one query per round (the first round asks for every item's base slug, later rounds for the next
 * few numbered candidates of the items still unresolved), instead of one claim lookup per item and candidate.
 * The read model has every item's slug, as the claims do, and a response is presented after its write settled.
 */
function uniqueTitleSlug(site: Site, ctx: HandlerContext, doc: ContentDoc): Promise<string> {
  let batcher = ctx.memo.get('present:generated-slugs') as GeneratedSlugBatcher | undefined;
  if (!batcher) {
    batcher = new GeneratedSlugBatcher(site);
    ctx.memo.set('present:generated-slugs', batcher);
  }
  return batcher.resolve(doc);
}

/** Numbered candidates asked for per item and round after the base (most titles are free or nearly so). */
const CANDIDATES_PER_ROUND = 8;

interface PendingSlug {
  doc: ContentDoc;
  candidates: Iterator<string>;
  resolve(slug: string): void;
  reject(error: unknown): void;
}

class GeneratedSlugBatcher {
  private queue: PendingSlug[] = [];

  constructor(private readonly site: Site) {}

  resolve(doc: ContentDoc): Promise<string> {
    return new Promise((resolve, reject) => {
      const candidates = slugCandidates(sanitizeSlug(doc.title) || String(doc.id), doc.type)[Symbol.iterator]();
      this.queue.push({ doc, candidates, resolve, reject });
      // Items presented together ask in the same turn; resolve them all at once on the next one.
      if (this.queue.length === 1) setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    const batch = this.queue;
    this.queue = [];
    try {
      let unresolved = batch;
      for (let round = 0; unresolved.length > 0; round++) {
        const size = round === 0 ? 1 : CANDIDATES_PER_ROUND;
        const asked = unresolved.map((item) => ({
          item,
          names: Array.from({ length: size }, () => item.candidates.next().value as string),
        }));
        const owners = await this.owners(asked);
        unresolved = [];
        for (const { item, names } of asked) {
          const free = names.find(
            (name) =>
              !(owners.get(`${item.doc.type} ${name}`) ?? []).some(
                (o) => o.id !== item.doc.id && (item.doc.type !== 'page' || o.parent === item.doc.parent),
              ),
          );
          if (free !== undefined) item.resolve(free);
          else unresolved.push(item);
        }
      }
    } catch (error) {
      for (const item of batch) item.reject(error);
    }
  }

  /** Who holds each asked name, by post type and name: one read-model query per post type. */
  private async owners(
    asked: { item: PendingSlug; names: string[] }[],
  ): Promise<Map<string, { id: number; parent: number }[]>> {
    const byType = new Map<ContentDoc['type'], Set<string>>();
    for (const { item, names } of asked) {
      const set = byType.get(item.doc.type) ?? new Set<string>();
      for (const name of names) set.add(name);
      byType.set(item.doc.type, set);
    }
    const owners = new Map<string, { id: number; parent: number }[]>();
    for (const [type, names] of byType) {
      const { items } = await this.site.readModel.query(type, {
        filters: [{ kind: 'any', field: 'slug', values: [...names] }],
        order: { kind: 'field', field: 'id', direction: 'asc' },
        offset: 0,
        limit: null,
      });
      for (const holder of items as ContentDoc[]) {
        const key = `${type} ${holder.slug}`;
        owners.set(key, [...(owners.get(key) ?? []), { id: holder.id, parent: holder.parent }]);
      }
    }
    return owners;
  }
}

/**
 * The `wp:action-*` relations WordPress adds in edit context: what the caller may do with items of the type
 * (publish, post unfiltered HTML, make sticky, choose the author, create and assign terms).
 */
function availableActions(actor: Actor | null, postType: ContentDoc['type']): string[] {
  const caps = capsOfPostType(postType);
  const can = (cap: string) => hasCap(actor, cap);
  const actions: string[] = [];
  if (can(caps.publish_posts)) actions.push('publish');
  if (can('unfiltered_html')) actions.push('unfiltered-html');
  // A reusable block has no author, terms or sticky flag.
  if (postType === 'wp_block') return actions;
  if (postType === 'post' && can(caps.edit_others_posts) && can(caps.publish_posts)) actions.push('sticky');
  if (can(caps.edit_others_posts)) actions.push('assign-author');
  if (postType === 'post') {
    // Creating a term of a hierarchical taxonomy needs manage_categories; a tag, only the right to assign one.
    if (can('manage_categories')) actions.push('create-categories');
    if (can('edit_posts')) actions.push('assign-categories', 'create-tags', 'assign-tags');
  }
  return actions;
}
