/**
 * Revisions and autosaves of posts, pages and reusable blocks (`/core/v2/{posts,pages,blocks}/{parent}/revisions[/{id}]`,
 * `/…/{id}/autosaves[/{id}]`). Nothing is stored for them separately: the `revisions` projection folds
 * them out of each item's stream (PostRevised, PostAutosaved, AutosaveDiscarded).
 */
import type { Site } from '../../site';
import { canDeleteItem, canEditItem, capsOfPostType, hasCap } from '../../access/capabilities';
import type { PostTypeCaps } from '../../access/capabilities';
import type { ArgSchema, Context } from '../../rest/args/schema';
import { argsFromSchema, contextParam, filterByContext } from '../../rest/schema';
import type { ResourceSchema } from '../../rest/schema';
import { collectionParams, offsetArg, sortArgs } from '../../rest/collectionParams';
import { authorizationStatus, restError } from '../../rest/errors';
import type { RestError } from '../../rest/errors';
import { ok } from '../../rest/route';
import type { HandlerContext, RouteDefinition } from '../../rest/route';
import { parseSearch } from '../content/listQuery';
import type { ContentDoc } from '../../../projections/content';
import type { RevisionEntry, RevisionsDoc } from '../../../projections/revisions';
import { ALL, EDIT, VIEW_EDIT, guidField } from '../content/fields';
import { permalink, restBaseOf } from '../content/present';
import type { ContentPresenter } from '../content/presenter';
import { collectionResult, linkQuery } from '../../rest/collection';
import { restoreRevision } from '../history/operations';
import { autosaveItem } from './operations';
import { publishRefusal } from '../content/routes';
import { currentItem, writtenHistory, writtenItem } from '../content/written';
import type { PostType } from '../content/events';
import type { PostInput } from '../content/decider';
import { renderContent, renderExcerpt, renderTitle } from '../../text/render';

const text = (value: unknown): string | undefined => {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && typeof (value as { raw?: unknown }).raw === 'string')
    return (value as { raw: string }).raw;
  return undefined;
};

/** The fields an autosave carries, from the request body (absent ones are stored empty, as WordPress does). */
function autosaveInput(ctx: HandlerContext): PostInput {
  const input: PostInput = {};
  for (const field of ['title', 'content', 'excerpt'] as const) {
    const value = text(ctx.params[field]);
    if (value !== undefined) input[field] = value;
  }
  return input;
}

/** A revision's text: read-only copies, so unlike the item's text fields no write shape. */
function revisionText(description: string, contexts: string[]) {
  return {
    description,
    type: 'object',
    context: contexts,
    properties: {
      raw: { description: `${description} As stored.`, type: 'string', context: EDIT },
      rendered: { description: `${description} As HTML for display.`, type: 'string', context: contexts },
    },
  };
}

export function revisionSchema(postType: PostType, autosave: boolean): ResourceSchema {
  // A reusable block's revision takes the block's title and content (raw in the view context too) and has no excerpt.
  const block = postType === 'wp_block';
  const blockText = (description: string, contexts: string[]) => ({
    description,
    type: 'object',
    context: contexts,
    properties: { raw: { description: `${description} As stored.`, type: 'string', context: VIEW_EDIT } },
  });
  const properties: Record<string, unknown> = {
    author: { description: "Identifier of the revision's author.", type: 'integer', context: ALL },
    date: {
      description: 'When the revision was made, in the site time zone.',
      type: 'string',
      format: 'date-time',
      context: ALL,
    },
    date_gmt: {
      description: 'When the revision was made, in UTC.',
      type: 'string',
      format: 'date-time',
      context: VIEW_EDIT,
    },
    guid: guidField('revision'),
    id: { description: 'Unique identifier of the revision.', type: 'integer', context: ALL },
    modified: {
      description: 'Last modification, in the site time zone.',
      type: 'string',
      format: 'date-time',
      context: VIEW_EDIT,
    },
    modified_gmt: {
      description: 'Last modification, in UTC.',
      type: 'string',
      format: 'date-time',
      context: VIEW_EDIT,
    },
    parent: { description: 'Identifier of the item the revision belongs to.', type: 'integer', context: ALL },
    slug: { description: 'URL-safe identifier of the revision.', type: 'string', context: ALL },
    title: block ? blockText('Title of the revision.', ALL) : revisionText('Title of the revision.', ALL),
    content: block
      ? blockText('Content of the revision.', VIEW_EDIT)
      : revisionText('Content of the revision.', VIEW_EDIT),
  };
  if (!block) properties.excerpt = revisionText('Excerpt of the revision.', ALL);
  if (autosave)
    properties.preview_link = {
      description: 'Preview URL of the autosave.',
      type: 'string',
      format: 'uri',
      context: EDIT,
      readonly: true,
    };
  return {
    $schema: 'http://json-schema.org/draft-04/schema#',
    title: `${postType}-revision`,
    type: 'object',
    properties,
  } as ResourceSchema;
}

interface TypeInfo {
  postType: PostType;
  caps: PostTypeCaps;
  restBase: string;
}

export function revisionRoutes(site: Site, presenter: ContentPresenter): RouteDefinition[] {
  const { postType } = presenter;
  const type: TypeInfo = { postType, caps: capsOfPostType(postType), restBase: restBaseOf(postType) };
  const revisions = revisionSchema(postType, false);
  const autosaves = revisionSchema(postType, true);
  const base = `/${type.restBase}`;
  const parentArg: ArgSchema = { description: 'Identifier of the item the revision belongs to.', type: 'integer' };
  const idArg: ArgSchema = { description: 'Unique identifier of the revision.', type: 'integer' };

  const siteUrl = site.settings.siteUrl;
  /** WordPress's `the_excerpt` filters of the stored excerpt: a revision's excerpt is never generated. */
  const renderStoredExcerpt = (raw: string) => renderExcerpt(raw, '', { siteUrl });
  /** As get_preview_post_link(): the item's link with `preview=true`, after `preview_id` for an autosave. */
  const previewLink = (parent: ContentDoc, autosave: boolean) => {
    // A reusable block is not viewable: it has no preview.
    if (parent.type === 'wp_block') return '';
    const link = new URL(permalink(parent, siteUrl));
    if (autosave) link.searchParams.append('preview_id', String(parent.id));
    link.searchParams.append('preview', 'true');
    return link.toString();
  };

  const present = (
    entry: RevisionEntry,
    parent: ContentDoc,
    schema: ResourceSchema,
    context: 'view' | 'edit' | 'embed',
  ) => {
    const guid = `${siteUrl}/?p=${entry.id}`;
    const item: Record<string, unknown> = {
      author: entry.author,
      date: entry.date,
      date_gmt: entry.date_gmt,
      guid: { rendered: guid, raw: guid },
      id: entry.id,
      modified: entry.date,
      modified_gmt: entry.date_gmt,
      parent: parent.id,
      slug: `${parent.id}-${entry.autosave ? 'autosave' : 'revision'}-v1`,
      title: { raw: entry.title, rendered: renderTitle(entry.title) },
      content: { raw: entry.content, rendered: renderContent(entry.content, { siteUrl }) },
      excerpt: { raw: entry.excerpt, rendered: renderStoredExcerpt(entry.excerpt) },
    };
    if ('preview_link' in schema.properties) item.preview_link = previewLink(parent, true);
    if (!('excerpt' in schema.properties)) delete item.excerpt;
    const filtered = filterByContext(schema, item, context) as Record<string, unknown>;
    filtered._links = { parent: [{ href: `${site.apiRoot}${type.restBase}/${parent.id}` }] };
    return filtered;
  };

  /**
   * The answer to an autosave of one's own draft: the draft itself in the autosave shape, as WordPress gives
   * it — its own dates (null while floating), slug, guid and parent, a "Protected:" title when it has a
   * password, and a `parent` link only when it has a parent.
   */
  const presentDraft = (doc: ContentDoc) => {
    const guid = `${siteUrl}${doc.guid}`;
    const floating = doc.date_gmt === null;
    const item: Record<string, unknown> = {
      author: doc.author,
      date: floating ? null : doc.date,
      date_gmt: floating ? null : doc.date_gmt,
      guid: { rendered: guid, raw: guid },
      id: doc.id,
      modified: doc.modified,
      modified_gmt: doc.modified_gmt,
      parent: doc.parent,
      slug: doc.slug,
      title: { raw: doc.title, rendered: renderTitle(doc.password !== '' ? `Protected: ${doc.title}` : doc.title) },
      content: { raw: doc.content, rendered: renderContent(doc.content, { siteUrl }) },
      excerpt: { raw: doc.excerpt, rendered: renderStoredExcerpt(doc.excerpt) },
      preview_link: previewLink(doc, false),
    };
    if (!('excerpt' in autosaves.properties)) delete item.excerpt;
    const filtered = filterByContext(autosaves, item, 'edit') as Record<string, unknown>;
    if (doc.parent !== 0) filtered._links = { parent: [{ href: `${site.apiRoot}${type.restBase}/${doc.parent}` }] };
    return filtered;
  };

  const history = async (parentId: number): Promise<RevisionsDoc | null> =>
    (await site.readModel.get('revisions', parentId)) as RevisionsDoc | null;

  /** The parent, checked as WordPress checks it for reading its revisions or autosaves. */
  const readableParent = async (
    ctx: HandlerContext,
    what: 'revisions' | 'autosaves',
    key = 'parent',
  ): Promise<ContentDoc | RestError> => {
    const parent = await loadParent(site, ctx, type, key);
    if (!parent) return restError('rest_post_invalid_parent', 'Invalid post parent ID.', 404);
    if (!canEditItem(ctx.actor, type.caps, owned(parent))) {
      return restError(
        'rest_cannot_read',
        `Sorry, you are not allowed to view ${what} of this post.`,
        authorizationStatus(ctx.actor?.id ?? null),
      );
    }
    return parent;
  };

  const newestFirst = (a: RevisionEntry, b: RevisionEntry) =>
    a.date === b.date ? b.id - a.id : a.date < b.date ? 1 : -1;

  return [
    {
      namespace: 'core/v2',
      path: `${base}/(?P<parent>[\\d]+)/revisions`,
      schema: revisions,
      endpoints: [
        {
          methods: ['GET'],
          args: {
            parent: parentArg,
            ...collectionParams({
              context: contextParam('view'),
              perPageDefault: null,
              search: 'Only revisions matching this search.',
            }),
            exclude: { description: 'Leave out these ids.', type: 'array', items: { type: 'integer' }, default: [] },
            include: { description: 'Only these ids.', type: 'array', items: { type: 'integer' }, default: [] },
            offset: offsetArg('Skip this many matches.'),
            ...sortArgs('desc', 'date', ['date', 'id', 'include', 'relevance', 'slug', 'include_slugs', 'title']),
          },
          permission: async (ctx) => {
            const parent = await readableParent(ctx, 'revisions');
            return parent instanceof Error ? parent : true;
          },
          handle: async (ctx) => {
            const parent = (await loadParent(site, ctx, type, 'parent'))!;
            const doc = await history(parent.id);
            const p = ctx.params;
            let entries = doc ? [...doc.revisions, ...doc.autosaves] : [];
            const include = p.include as number[];
            if (include.length > 0) entries = entries.filter((e) => include.includes(e.id));
            else if ((p.exclude as number[]).length > 0)
              entries = entries.filter((e) => !(p.exclude as number[]).includes(e.id));
            const search = typeof p.search === 'string' && p.search.trim() !== '' ? parseSearch(p.search) : null;
            if (search) {
              const { includes, excludes } = search;
              const has = (e: RevisionEntry, term: string) =>
                [e.title, e.excerpt, e.content].some((text) => text.toLowerCase().includes(term.toLowerCase()));
              entries = entries.filter(
                (e) => includes.every((term) => has(e, term)) && !excludes.some((term) => has(e, term)),
              );
            }
            if (p.orderby === 'include' && include.length === 0) {
              throw restError(
                'rest_orderby_include_missing_include',
                'You need to define an include parameter to order by include.',
                400,
              );
            }
            if (p.orderby === 'relevance' && !(typeof p.search === 'string' && p.search !== '')) {
              throw restError(
                'rest_no_search_term_defined',
                'You need to define a search term to order by relevance.',
                400,
              );
            }
            entries.sort(newestFirst);
            const byTitle = (a: RevisionEntry, b: RevisionEntry) =>
              a.title.toLowerCase() < b.title.toLowerCase()
                ? -1
                : a.title.toLowerCase() > b.title.toLowerCase()
                  ? 1
                  : 0;
            // Every revision has the slug `{parent}-revision-v1`, every autosave `{parent}-autosave-v1`.
            const bySlug = (a: RevisionEntry, b: RevisionEntry) => Number(!a.autosave) - Number(!b.autosave);
            const descending = p.order !== 'asc';
            if (p.orderby === 'include') entries.sort((a, b) => include.indexOf(a.id) - include.indexOf(b.id));
            else if (p.orderby === 'id') entries.sort((a, b) => (descending ? b.id - a.id : a.id - b.id));
            else if (p.orderby === 'title') entries.sort((a, b) => (descending ? -byTitle(a, b) : byTitle(a, b)));
            else if (p.orderby === 'slug') entries.sort((a, b) => (descending ? -bySlug(a, b) : bySlug(a, b)));
            else if (p.orderby === 'relevance' && search) {
              // Within a rank, WordPress falls back to the date in the requested order.
              if (!descending) entries.reverse();
              const rank = relevanceRank(search);
              entries.sort((a, b) => rank(a) - rank(b));
            } else if (!descending) entries.reverse();

            // As WordPress: everything when per_page is absent; an offset at or past the end, or (without an
            // offset) a page past the last, is an error whenever there is anything at all.
            const total = entries.length;
            const perPage = typeof p.per_page === 'number' ? p.per_page : null;
            const offset = typeof p.offset === 'number' ? p.offset : 0;
            const page = p.page as number;
            const pages = perPage === null ? (total > 0 ? 1 : 0) : Math.ceil(total / perPage);
            if (total > 0 && offset >= total) {
              throw restError(
                'rest_revision_invalid_offset_number',
                'The offset number requested is larger than or equal to the number of available revisions.',
                400,
              );
            }
            if (total > 0 && offset === 0 && page > pages) {
              throw restError(
                'rest_revision_invalid_page_number',
                'The page number requested is larger than the number of pages available.',
                400,
              );
            }
            // As WP_Query: an offset skips its absolute value; page 0 (`page=1e400`, as PHP casts it) is the first.
            const start = perPage === null ? 0 : offset !== 0 ? Math.abs(offset) : (Math.max(page, 1) - 1) * perPage;
            const shown = perPage === null ? entries : entries.slice(start, start + perPage);
            const body = shown.map((entry) => present(entry, parent, revisions, p.context as Context));
            const url = `${site.apiRoot}${type.restBase}/${parent.id}/revisions`;
            // The page count the Link header uses is WordPress's: from per_page, or 1 for everything.
            return collectionResult(body, { total, page, perPage: perPage ?? Math.max(total, 1) }, url, linkQuery(ctx));
          },
        },
      ],
    },
    {
      namespace: 'core/v2',
      path: `${base}/(?P<parent>[\\d]+)/revisions/(?P<id>[\\d]+)`,
      schema: revisions,
      endpoints: [
        {
          methods: ['GET'],
          args: { parent: parentArg, id: idArg, context: contextParam('view') },
          permission: async (ctx) => {
            const parent = await readableParent(ctx, 'revisions');
            return parent instanceof Error ? parent : true;
          },
          handle: async (ctx) => {
            const parent = (await loadParent(site, ctx, type, 'parent'))!;
            const entry = findRevision(await history(parent.id), Number(ctx.params.id));
            if (!entry) throw restError('rest_post_invalid_id', 'Invalid revision ID.', 404);
            return ok(present(entry, parent, revisions, ctx.params.context as Context));
          },
        },
        {
          methods: ['DELETE'],
          args: {
            parent: parentArg,
            id: idArg,
            force: {
              type: 'boolean',
              default: false,
              description: 'Required to be true, as revisions do not support trashing.',
            },
          },
          permission: async (ctx) => {
            const status = authorizationStatus(ctx.actor?.id ?? null);
            const parent = await loadParent(site, ctx, type, 'parent');
            if (!parent) return restError('rest_post_invalid_parent', 'Invalid post parent ID.', 404);
            if (!canDeleteItem(ctx.actor, type.caps, owned(parent))) {
              return restError(
                'rest_cannot_delete',
                'Sorry, you are not allowed to delete revisions of this post.',
                status,
              );
            }
            if (!findRevision(await history(parent.id), Number(ctx.params.id)))
              return restError('rest_post_invalid_id', 'Invalid revision ID.', 404);
            if (!canEditItem(ctx.actor, type.caps, owned(parent))) {
              return restError(
                'rest_cannot_read',
                'Sorry, you are not allowed to view revisions of this post.',
                status,
              );
            }
            // WordPress 6.1 maps deleting a revision to a capability nobody has: every caller is refused here.
            return restError('rest_cannot_delete', 'Sorry, you are not allowed to delete this revision.', 403);
          },
          signedInOnly: true,
          handle: () => {
            throw restError(
              'rest_trash_not_supported',
              "Revisions do not support trashing. Set 'force=true' to delete.",
              501,
            );
          },
        },
      ],
    },
    {
      // Restoring (an extension: WordPress restores from its admin screens only). See docs/history.md.
      namespace: 'core/v2',
      path: `${base}/(?P<parent>[\\d]+)/revisions/(?P<id>[\\d]+)/restore`,
      schema: presenter.schema,
      endpoints: [
        {
          methods: ['POST'],
          args: { parent: parentArg, id: idArg },
          permission: async (ctx) => {
            const parent = await loadParent(site, ctx, type, 'parent');
            if (!parent) return restError('rest_post_invalid_parent', 'Invalid post parent ID.', 404);
            if (!canEditItem(ctx.actor, type.caps, owned(parent))) {
              return restError(
                'rest_cannot_edit',
                `Sorry, you are not allowed to edit this ${postType}.`,
                authorizationStatus(ctx.actor?.id ?? null),
              );
            }
            if (!findRevision(await history(parent.id), Number(ctx.params.id)))
              return restError('rest_post_invalid_id', 'Invalid revision ID.', 404);
            return true;
          },
          // Restoring and autosaving take the right to edit the item, which no anonymous caller has.
          signedInOnly: true,
          handle: async (ctx) => {
            const parent = (await loadParent(site, ctx, type, 'parent'))!;
            const entry = findRevision(await history(parent.id), Number(ctx.params.id))!;
            const outcome = await restoreRevision(site, postType, parent.id, entry, ctx.actor!, ctx.request.requestId);
            await site.settle(outcome.position);
            // The restored item as its own routes show it to this caller in edit context, links included.
            return ok(
              await presenter.present(
                ctx,
                await writtenItem(site, postType, parent.id, outcome.position),
                'edit',
                true,
              ),
            );
          },
        },
      ],
    },
    {
      namespace: 'core/v2',
      path: `${base}/(?P<id>[\\d]+)/autosaves`,
      schema: autosaves,
      endpoints: [
        {
          methods: ['GET'],
          args: { parent: parentArg, context: contextParam('view') },
          permission: async (ctx) => {
            const parent = await readableParent(ctx, 'autosaves', 'id');
            return parent instanceof Error ? parent : true;
          },
          handle: async (ctx) => {
            const parent = (await loadParent(site, ctx, type, 'id'))!;
            const doc = await history(parent.id);
            const entries = doc ? [...doc.autosaves].sort(newestFirst) : [];
            return ok(entries.map((entry) => present(entry, parent, autosaves, ctx.params.context as Context)));
          },
        },
        {
          methods: ['POST'],
          args: { parent: parentArg, ...argsFromSchema(presenter.schema, 'update') },
          permission: async (ctx) => {
            const parent = await loadParent(site, ctx, type, 'id');
            if (!parent) return restError('rest_post_invalid_id', 'Invalid post ID.', 404);
            // The item's own update rule, as WordPress applies it to autosaves.
            const status = authorizationStatus(ctx.actor?.id ?? null);
            if (!canEditItem(ctx.actor, type.caps, owned(parent))) {
              return restError('rest_cannot_edit', 'Sorry, you are not allowed to edit this post.', status);
            }
            if (
              ctx.params.author &&
              ctx.params.author !== ctx.actor?.id &&
              !hasCap(ctx.actor, type.caps.edit_others_posts)
            ) {
              return restError(
                'rest_cannot_edit_others',
                'Sorry, you are not allowed to update posts as this user.',
                status,
              );
            }
            if (
              ctx.params.sticky === true &&
              !hasCap(ctx.actor, type.caps.edit_others_posts) &&
              !hasCap(ctx.actor, type.caps.publish_posts)
            ) {
              return restError('rest_cannot_assign_sticky', 'Sorry, you are not allowed to make posts sticky.', status);
            }
            // An autosave keeps no status, but asking for one that publishes is refused as an update would be,
            // rather than answered as if done (WordPress 6.1 answers 200 and saves nothing).
            return publishRefusal(ctx.actor, type.caps, ctx.params.status, parent) ?? true;
          },
          signedInOnly: true,
          handle: async (ctx) => {
            const parent = (await loadParent(site, ctx, type, 'id'))!;
            const outcome = await autosaveItem(
              site,
              postType,
              parent.id,
              autosaveInput(ctx),
              ctx.actor!,
              ctx.request.requestId,
            );
            await site.settle(outcome.position);
            if (outcome.savedItem) {
              // The author's own draft was saved: WordPress answers with the draft in the revision shape.
              return ok(presentDraft(await writtenItem(site, postType, parent.id, outcome.position)));
            }
            const entry = findRevision(await writtenHistory(site, parent.id, outcome.position), outcome.autosaveId!);
            if (!entry)
              throw new Error(`autosave ${outcome.autosaveId} of ${postType} ${parent.id} missing from its history`);
            return ok(present(entry, parent, autosaves, 'edit'));
          },
        },
      ],
    },
    {
      namespace: 'core/v2',
      path: `${base}/(?P<parent>[\\d]+)/autosaves/(?P<id>[\\d]+)`,
      schema: autosaves,
      endpoints: [
        {
          methods: ['GET'],
          args: {
            parent: parentArg,
            id: { description: 'Identifier of the autosave.', type: 'integer' },
            context: contextParam('view'),
          },
          // WordPress checks a single autosave with the revisions rule, message included.
          permission: async (ctx) => {
            const parent = await readableParent(ctx, 'revisions');
            return parent instanceof Error ? parent : true;
          },
          handle: async (ctx) => {
            const parent = (await loadParent(site, ctx, type, 'parent'))!;
            const doc = await history(parent.id);
            // WordPress answers with the item's latest autosave, whatever the id asked for.
            const latest = doc ? [...doc.autosaves].sort(newestFirst)[0] : undefined;
            if (!latest) throw restError('rest_post_no_autosave', 'There is no autosave revision for this post.', 404);
            return ok(present(latest, parent, autosaves, ctx.params.context as Context));
          },
        },
      ],
    },
  ];
}

/**
 * WordPress's search relevance (WP_Query's search order). One term: those with it in the title first. Several:
 * the whole search in the title (unless it excludes a term), then all the terms in the title, then any of
 * them (up to six terms), then the whole search in the excerpt, then in the content. Within a rank the list
 * keeps the order it has (by date, as requested).
 */
function relevanceRank(search: { phrase: string; includes: readonly string[]; excludes: readonly string[] }) {
  const words = search.includes.map((word) => word.toLowerCase());
  const inTitle = (entry: RevisionEntry, word: string) => entry.title.toLowerCase().includes(word);
  if (words.length + search.excludes.length <= 1)
    return (entry: RevisionEntry): number => (words.length === 1 && inTitle(entry, words[0]!) ? 0 : 1);
  const sentence = /(?:\s|^)-/.test(search.phrase) ? null : search.phrase.toLowerCase();
  const fewTerms = words.length < 7;
  return (entry: RevisionEntry): number => {
    if (sentence !== null && entry.title.toLowerCase().includes(sentence)) return 1;
    if (fewTerms && words.every((word) => inTitle(entry, word))) return 2;
    if (fewTerms && words.length > 1 && words.some((word) => inTitle(entry, word))) return 3;
    if (sentence !== null && entry.excerpt.toLowerCase().includes(sentence)) return 4;
    if (sentence !== null && entry.content.toLowerCase().includes(sentence)) return 5;
    return 6;
  };
}

const owned = (doc: ContentDoc) => ({ author: doc.author, status: doc.status, trashedFrom: doc.trashed_from });

function findRevision(doc: RevisionsDoc | null, id: number): RevisionEntry | undefined {
  return doc ? [...doc.revisions, ...doc.autosaves].find((entry) => entry.id === id) : undefined;
}

async function loadParent(site: Site, ctx: HandlerContext, type: TypeInfo, key: string): Promise<ContentDoc | null> {
  const memoKey = `parent:${type.postType}:${key}`;
  if (!ctx.memo.has(memoKey)) {
    const id = Number(ctx.params[key]);
    ctx.memo.set(memoKey, Number.isInteger(id) && id > 0 ? await currentItem(site, type.postType, id) : null);
  }
  return ctx.memo.get(memoKey) as ContentDoc | null;
}
