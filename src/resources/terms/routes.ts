/**
 * Routes of the taxonomies shown in the API (`/core/v2/categories`, `/core/v2/tags`): list, create, read,
 * update, delete. Permission rules are written in capability terms; WordPress's error for every refusal
 * comes from the rule or the handler, in WordPress's order.
 */
import type { Site } from '../../site';
import type { Actor } from '../../access/capabilities';
import { canReadItem, hasCap, postTypeCaps } from '../../access/capabilities';
import type { ArgSchema } from '../../rest/args/schema';
import { argsFromSchema, contextParam } from '../../rest/schema';
import type { Context, ResourceSchema } from '../../rest/schema';
import { collectionParams, offsetArg, sortArgs } from '../../rest/collectionParams';
import { authorizationStatus, restError } from '../../rest/errors';
import type { RestError } from '../../rest/errors';
import { collectionResult, linkQuery, offsetGiven, readModelOffset } from '../../rest/collection';
import { created, ok } from '../../rest/route';
import type { HandlerContext, RouteDefinition } from '../../rest/route';
import type { Filter, Order } from '../../ports/readModel';
import { sanitizeSlug } from '../../text/slug';
import type { ContentDoc } from '../../../projections/content';
import { TERM_COLLECTION } from '../../../projections/terms';
import type { TermDoc } from '../../../projections/terms';
import { DEFAULT_CATEGORY_ID } from './decider';
import { termStreamId } from './events';
import type { Taxonomy } from './events';
import { readCurrent, readWritten } from '../../projection/written';
import {
  TAXONOMIES,
  createTerm,
  deleteTerm,
  parentMissing,
  readTermDoc,
  taxonomyFilter,
  termCounts,
  termsWhere,
  updateTerm,
} from './operations';
import type { TaxonomyInfo, TermInput } from './operations';
import { presentTerm, termLink } from './present';
import { termSchema } from './schema';
import { embeddedTermsBatch } from './embedBatch';
import { sanitizeTextField } from './sanitize';

/** Managing terms of either taxonomy (editing, deleting, the edit context) takes this capability. */
const MANAGE_TERMS = 'manage_categories';
/** Assigning terms to posts; for a flat taxonomy (tags) it is also enough to create one. */
const ASSIGN_TERMS = 'edit_posts';

const ORDERBY = ['id', 'include', 'name', 'slug', 'include_slugs', 'term_group', 'description', 'count'] as const;

/** What other slices do when terms change. */
export interface TermRouteDeps {
  /**
   * Runs after a term was deleted (before the answer): the posts slice takes the term off its posts, and puts
   * posts left without a category into the default one, as WordPress does. Resolves to the global position
   * of its last write (0 for none), so that the answer waits for it.
   */
  afterDelete?(taxonomy: Taxonomy, id: number, actor: Actor | null, requestId: string): Promise<number>;
}

export function termRoutes(site: Site, deps: TermRouteDeps = {}): RouteDefinition[] {
  return [...taxonomyRoutes(site, TAXONOMIES.category, deps), ...taxonomyRoutes(site, TAXONOMIES.post_tag, deps)];
}

function taxonomyRoutes(site: Site, tax: TaxonomyInfo, deps: TermRouteDeps): RouteDefinition[] {
  const schema = termSchema(tax.taxonomy);
  const collectionPath = `/core/v2/${tax.restBase}`;
  const itemPath = `${collectionPath}/(?P<id>[\\d]+)`;

  const listArgs: Record<string, ArgSchema> = {
    ...collectionParams({
      context: contextParam('view', schema),
      search: 'Only terms whose name or slug contains this text.',
    }),
    exclude: { description: 'Leave out these ids.', type: 'array', items: { type: 'integer' }, default: [] },
    include: { description: 'Only these ids.', type: 'array', items: { type: 'integer' }, default: [] },
    ...(tax.hierarchical ? {} : { offset: offsetArg() }),
    ...sortArgs('asc', 'name', ORDERBY),
    hide_empty: { description: 'Leave out terms no published post has.', type: 'boolean', default: false },
    ...(tax.hierarchical
      ? { parent: { description: 'Only the direct children of this term (0: top-level terms).', type: 'integer' } }
      : {}),
    post: { description: 'Only the terms of this post.', type: 'integer', default: null },
    slug: { description: 'Only terms with one of these slugs.', type: 'array', items: { type: 'string' } },
  };
  const idArg: Record<string, ArgSchema> = { id: { description: 'Unique identifier of the term.', type: 'integer' } };

  return [
    {
      namespace: 'core/v2',
      path: collectionPath,
      schema,
      endpoints: [
        {
          methods: ['GET'],
          args: listArgs,
          allowBatch: true,
          cacheable: true,
          permission: (ctx) => listPermission(site, ctx),
          handle: (ctx) => listTerms(site, ctx, tax, schema),
        },
        {
          methods: ['POST'],
          args: argsFromSchema(schema, 'create'),
          allowBatch: true,
          permission: (ctx) => createPermission(ctx, tax),
          // This rule and the update and delete ones pass only with a capability, which no anonymous caller holds.
          signedInOnly: true,
          handle: async (ctx) => {
            const input = await writeInput(site, ctx, tax);
            const outcome = await createTerm(site, tax.taxonomy, input, ctx.actor, ctx.request.requestId);
            await site.settle(outcome.position);
            const doc = await requireWritten(site, tax, outcome.id, outcome.position);
            const body = (await presentMany(site, tax, schema, [doc], 'edit'))[0];
            return created(body, `${site.apiRoot}core/v2/${tax.restBase}/${outcome.id}`);
          },
        },
      ],
    },
    {
      namespace: 'core/v2',
      path: itemPath,
      schema,
      endpoints: [
        {
          methods: ['GET'],
          args: { ...idArg, context: contextParam('view', schema) },
          allowBatch: true,
          cacheable: true,
          permission: (ctx) => readPermission(site, ctx, tax),
          handle: async (ctx) => {
            const doc = (await loadDoc(site, ctx, tax))!;
            return ok((await presentMany(site, tax, schema, [doc], ctx.params.context as Context))[0]);
          },
        },
        {
          methods: ['POST', 'PUT', 'PATCH'],
          args: { ...idArg, ...argsFromSchema(schema, 'update') },
          allowBatch: true,
          permission: (ctx) => updatePermission(site, ctx, tax),
          signedInOnly: true,
          handle: async (ctx) => {
            const doc = (await loadDoc(site, ctx, tax))!;
            const input = await writeInput(site, ctx, tax);
            const outcome = await updateTerm(site, tax.taxonomy, doc.id, input, ctx.actor, ctx.request.requestId);
            await site.settle(outcome.position);
            const after = await requireWritten(site, tax, doc.id, outcome.position);
            return ok((await presentMany(site, tax, schema, [after], 'edit'))[0]);
          },
        },
        {
          methods: ['DELETE'],
          args: {
            ...idArg,
            force: { type: 'boolean', default: false, description: 'Must be true: terms have no trash.' },
          },
          allowBatch: true,
          permission: (ctx) => deletePermission(site, ctx, tax),
          signedInOnly: true,
          handle: async (ctx) => {
            const doc = (await loadDoc(site, ctx, tax))!;
            if (ctx.params.force !== true) {
              throw restError(
                'rest_trash_not_supported',
                "Terms do not support trashing. Set 'force=true' to delete.",
                501,
              );
            }
            // WordPress answers with the term as it was, in the view context and without links.
            const previous = (await presentMany(site, tax, schema, [doc], 'view', false))[0];
            const outcome = await deleteTerm(site, tax.taxonomy, doc.id, ctx.actor, ctx.request.requestId);
            const reassigned = (await deps.afterDelete?.(tax.taxonomy, doc.id, ctx.actor, ctx.request.requestId)) ?? 0;
            await site.settle(Math.max(outcome.position, reassigned));
            return ok({ deleted: true, previous });
          },
        },
      ],
    },
  ];
}

// --- permissions -------------------------------------------------------------------------------------------

async function listPermission(site: Site, ctx: HandlerContext): Promise<true | RestError> {
  const status = authorizationStatus(ctx.actor?.id ?? null);
  if (ctx.params.context === 'edit' && !hasCap(ctx.actor, MANAGE_TERMS)) {
    return restError('rest_forbidden_context', 'Sorry, you are not allowed to edit terms in this taxonomy.', status);
  }
  const postId = ctx.params.post;
  if (typeof postId === 'number' && postId !== 0) {
    const found = await loadPost(site, ctx, postId);
    if (!found) return restError('rest_post_invalid_id', 'Invalid post ID.', 400);
    // Only posts have categories and tags; a published post's terms are public, others need read access.
    const readable =
      found.type === 'post' &&
      (found.status === 'publish' ||
        canReadItem(ctx.actor, postTypeCaps('posts'), {
          author: found.author,
          status: found.status,
          trashedFrom: found.trashed_from,
        }));
    if (!readable)
      return restError('rest_forbidden_context', 'Sorry, you are not allowed to view terms for this post.', status);
  }
  return true;
}

function createPermission(ctx: HandlerContext, tax: TaxonomyInfo): true | RestError {
  const needed = tax.hierarchical ? MANAGE_TERMS : ASSIGN_TERMS;
  if (!hasCap(ctx.actor, needed)) {
    return restError(
      'rest_cannot_create',
      'Sorry, you are not allowed to create terms in this taxonomy.',
      authorizationStatus(ctx.actor?.id ?? null),
    );
  }
  return true;
}

async function readPermission(site: Site, ctx: HandlerContext, tax: TaxonomyInfo): Promise<true | RestError> {
  if (!(await loadDoc(site, ctx, tax))) return termInvalid();
  if (ctx.params.context === 'edit' && !hasCap(ctx.actor, MANAGE_TERMS)) {
    return restError(
      'rest_forbidden_context',
      'Sorry, you are not allowed to edit this term.',
      authorizationStatus(ctx.actor?.id ?? null),
    );
  }
  return true;
}

async function updatePermission(site: Site, ctx: HandlerContext, tax: TaxonomyInfo): Promise<true | RestError> {
  if (!(await loadDoc(site, ctx, tax))) return termInvalid();
  if (!hasCap(ctx.actor, MANAGE_TERMS)) {
    return restError(
      'rest_cannot_update',
      'Sorry, you are not allowed to edit this term.',
      authorizationStatus(ctx.actor?.id ?? null),
    );
  }
  return true;
}

async function deletePermission(site: Site, ctx: HandlerContext, tax: TaxonomyInfo): Promise<true | RestError> {
  const doc = await loadDoc(site, ctx, tax);
  if (!doc) return termInvalid();
  // Nobody may delete the default category.
  const isDefault = tax.taxonomy === 'category' && doc.id === DEFAULT_CATEGORY_ID;
  if (isDefault || !hasCap(ctx.actor, MANAGE_TERMS)) {
    return restError(
      'rest_cannot_delete',
      'Sorry, you are not allowed to delete this term.',
      authorizationStatus(ctx.actor?.id ?? null),
    );
  }
  return true;
}

// --- handlers ------------------------------------------------------------------------------------------------

async function listTerms(site: Site, ctx: HandlerContext, tax: TaxonomyInfo, schema: ResourceSchema) {
  const p = ctx.params;
  const perPage = p.per_page as number;
  const page = p.page as number;
  // Only flat taxonomies take `offset`; 0 means "use the page". As get_terms, the matches skipped are the offset's
  // absolute value: page 0 (`page=1e400`, as PHP casts it) skips a page.
  const offset = !tax.hierarchical && offsetGiven(p) ? p.offset : (page - 1) * perPage;
  const start = readModelOffset(Math.abs(offset));

  const filters: Filter[] = [taxonomyFilter(tax.taxonomy)];
  const include = p.include as number[];
  // `exclude` only counts when there is no `include`.
  if (include.length > 0) filters.push({ kind: 'any', field: 'id', values: include });
  else if ((p.exclude as number[]).length > 0)
    filters.push({ kind: 'none', field: 'id', values: p.exclude as number[] });
  const search = typeof p.search === 'string' ? sanitizeTextField(p.search) : '';
  if (search !== '') filters.push({ kind: 'text', fields: ['name', 'slug'], includes: [search], excludes: [] });
  const slugs = Array.isArray(p.slug) ? (p.slug as unknown[]).map((s) => sanitizeSlug(String(s))) : [];
  if (slugs.length > 0) filters.push({ kind: 'any', field: 'slug', values: slugs });
  if (tax.hierarchical && typeof p.parent === 'number')
    filters.push({ kind: 'any', field: 'parent', values: [p.parent] });
  let hideEmpty = p.hide_empty === true;
  const post = typeof p.post === 'number' && p.post !== 0 ? await loadPost(site, ctx, p.post) : null;
  const postTerms = post ? ((tax.taxonomy === 'category' ? post.categories : post.tags) ?? []) : null;
  if (postTerms) {
    filters.push({ kind: 'any', field: 'id', values: postTerms });
    // A post's own terms are never hidden for being empty.
    hideEmpty = false;
  }

  let orderby = p.orderby as (typeof ORDERBY)[number];
  const direction = p.order as 'asc' | 'desc';
  // Ordering by a list that was not given falls back to the name.
  if ((orderby === 'include' && include.length === 0) || (orderby === 'include_slugs' && slugs.length === 0))
    orderby = 'name';
  const order = orderOf(orderby, direction, include, slugs);

  let docs: TermDoc[];
  let total: number;
  let counts: Map<number, number>;
  // An embedded post's terms (filtered on the taxonomy and the post's terms only) are resolved with the other
  // posts' of the same response (embedBatch.ts).
  const batch =
    postTerms && filters.length === 2 && orderby !== 'count' ? embeddedTermsBatch(site, ctx.request.shared) : null;
  if (batch && postTerms) {
    const matches = await batch.termsAmong(tax.taxonomy, order, postTerms);
    total = matches.length;
    docs = matches.slice(start, start + perPage);
    counts = await batch.counts(
      tax.taxonomy,
      docs.map((d) => d.id),
    );
  } else if (orderby !== 'count' && !hideEmpty) {
    const result = await site.readModel.query(TERM_COLLECTION, { filters, order, offset: start, limit: perPage });
    docs = result.items as TermDoc[];
    total = result.total;
    counts = await termCounts(
      site,
      tax.taxonomy,
      docs.map((d) => d.id),
    );
  } else {
    // Counts are not a read-model sort key (see projections/terms.ts): rank the matches here.
    const { items } = await site.readModel.query(TERM_COLLECTION, { filters, order, offset: 0, limit: null });
    let matches = items as TermDoc[];
    counts = await termCounts(
      site,
      tax.taxonomy,
      matches.map((d) => d.id),
    );
    total = matches.length;
    if (hideEmpty) {
      const counted = matches.filter((d) => (counts.get(d.id) ?? 0) > 0);
      // The total counts non-empty terms only, but an empty category with a non-empty descendant is listed.
      total = counted.length;
      matches = tax.hierarchical ? await withCountedDescendants(site, tax, matches, counts) : counted;
    }
    if (orderby === 'count') {
      const sign = direction === 'asc' ? 1 : -1;
      matches = [...matches].sort((a, b) => sign * ((counts.get(a.id) ?? 0) - (counts.get(b.id) ?? 0)) || a.id - b.id);
    }
    docs = matches.slice(start, start + perPage);
  }

  const body = await presentMany(site, tax, schema, docs, p.context as Context, true, counts);
  const reportedPage = Math.ceil(offset / perPage + 1);
  return collectionResult(
    body,
    { total, page: reportedPage, perPage },
    `${site.apiRoot}core/v2/${tax.restBase}`,
    linkQuery(ctx),
  );
}

function orderOf(orderby: string, direction: 'asc' | 'desc', include: number[], slugs: string[]): Order {
  const listed = <T>(values: T[]) => (direction === 'desc' ? [...values].reverse() : values);
  switch (orderby) {
    case 'include':
      return { kind: 'list', field: 'id', values: listed(include) };
    case 'include_slugs':
      return { kind: 'list', field: 'slug', values: listed(slugs) };
    case 'id':
      return { kind: 'field', field: 'id', direction };
    case 'slug':
      return { kind: 'field', field: 'slug', direction };
    case 'description':
    case 'name':
      // Ties go by ascending id in both directions, hence a dedicated key for descending orders.
      return direction === 'asc'
        ? { kind: 'field', field: orderby, direction }
        : { kind: 'field', field: `${orderby}_desc`, direction };
    default:
      // term_group is always 0 here; count is ranked by the handler after this id order.
      return { kind: 'field', field: 'id', direction: 'asc' };
  }
}

/** Keeps the terms that are counted, or have a counted descendant (WordPress lists such empty parents). */
async function withCountedDescendants(
  site: Site,
  tax: TaxonomyInfo,
  matches: TermDoc[],
  counts: Map<number, number>,
): Promise<TermDoc[]> {
  const everything = await termsWhere(site, [taxonomyFilter(tax.taxonomy)]);
  const unknown = everything.filter((d) => !counts.has(d.id)).map((d) => d.id);
  const allCounts = new Map([...counts, ...(await termCounts(site, tax.taxonomy, unknown))]);
  const children = new Map<number, number[]>();
  for (const doc of everything) children.set(doc.parent, [...(children.get(doc.parent) ?? []), doc.id]);
  const hasCounted = (id: number, seen: Set<number>): boolean =>
    (children.get(id) ?? []).some((child) => {
      if (seen.has(child)) return false;
      seen.add(child);
      return (allCounts.get(child) ?? 0) > 0 || hasCounted(child, seen);
    });
  return matches.filter((d) => (allCounts.get(d.id) ?? 0) > 0 || hasCounted(d.id, new Set([d.id])));
}

/** Presents documents with their counts and public URLs (which need the ancestors' slugs). */
async function presentMany(
  site: Site,
  tax: TaxonomyInfo,
  schema: ResourceSchema,
  docs: TermDoc[],
  context: Context,
  links = true,
  knownCounts?: Map<number, number>,
): Promise<Record<string, unknown>[]> {
  const counts =
    knownCounts ??
    (await termCounts(
      site,
      tax.taxonomy,
      docs.map((d) => d.id),
    ));
  const ancestors = tax.hierarchical ? await ancestorsOf(site, docs) : new Map<number, TermDoc>();
  return docs.map((doc) => {
    const slugs: string[] = [];
    const seen = new Set<number>([doc.id]);
    for (
      let parent = doc.parent;
      parent > 0 && ancestors.has(parent) && !seen.has(parent);
      parent = ancestors.get(parent)!.parent
    ) {
      seen.add(parent);
      slugs.push(ancestors.get(parent)!.slug);
    }
    return presentTerm(doc, schema, {
      context,
      count: counts.get(doc.id) ?? 0,
      link: termLink(doc, tax, site.settings.siteUrl, slugs),
      apiRoot: site.apiRoot,
      taxonomy: tax,
      links,
    });
  });
}

/** Every ancestor of the given terms, fetched a generation at a time. */
async function ancestorsOf(site: Site, docs: TermDoc[]): Promise<Map<number, TermDoc>> {
  const known = new Map<number, TermDoc>(docs.map((d) => [d.id, d]));
  const absent = new Set<number>();
  for (;;) {
    const missing = [...new Set([...known.values()].map((d) => d.parent))].filter(
      (id) => id > 0 && !known.has(id) && !absent.has(id),
    );
    if (missing.length === 0) return known;
    const fetched = (await site.readModel.getMany(TERM_COLLECTION, missing)) as (TermDoc | null)[];
    fetched.forEach((doc, i) => {
      if (doc) known.set(doc.id, doc);
      else absent.add(missing[i]!);
    });
  }
}

/** The write params that were sent (null counts as absent, as WordPress's isset does), checked for the parent. */
async function writeInput(site: Site, ctx: HandlerContext, tax: TaxonomyInfo): Promise<TermInput> {
  const p = ctx.params;
  const given = (key: string) => p[key] !== undefined && p[key] !== null;
  if (given('parent')) {
    if (!tax.hierarchical)
      throw restError('rest_taxonomy_not_hierarchical', 'Cannot set parent term, taxonomy is not hierarchical.', 400);
    const parent = p.parent as number;
    if (parent !== 0) {
      const doc = await readTermDoc(site, parent);
      if (!doc || doc.taxonomy !== tax.taxonomy) throw parentMissing();
    }
  }
  const input: TermInput = {};
  if (given('name')) input.name = p.name as string;
  if (given('slug')) input.slug = p.slug as string;
  if (given('description')) input.description = p.description as string;
  if (tax.hierarchical && given('parent')) input.parent = p.parent as number;
  return input;
}

// --- helpers -------------------------------------------------------------------------------------------------

const termInvalid = () => restError('rest_term_invalid', 'Term does not exist.', 404);

/** The term addressed by `{id}`, loaded once per request (also while the terms projection rebuilds); null when absent or of the other taxonomy. */
async function loadDoc(site: Site, ctx: HandlerContext, tax: TaxonomyInfo): Promise<TermDoc | null> {
  const key = `term:${tax.taxonomy}`;
  if (!ctx.memo.has(key)) {
    const id = Number(ctx.params.id);
    const doc =
      Number.isInteger(id) && id > 0
        ? await readCurrent<TermDoc>(site, {
            projection: 'terms',
            collection: TERM_COLLECTION,
            id,
            stream: termStreamId(id),
          })
        : null;
    ctx.memo.set(key, doc && doc.taxonomy === tax.taxonomy ? doc : null);
  }
  return ctx.memo.get(key) as TermDoc | null;
}

/** The term as the write at `position` left it, for the write's answer (also while the terms projection rebuilds). */
async function requireWritten(site: Site, tax: TaxonomyInfo, id: number, position: number): Promise<TermDoc> {
  const doc = await readWritten<TermDoc>(site, {
    projection: 'terms',
    collection: TERM_COLLECTION,
    id,
    stream: termStreamId(id),
    position,
  });
  if (!doc || doc.taxonomy !== tax.taxonomy) throw termInvalid();
  return doc;
}

/** The item named by `post`, of any post type there is, loaded once per request. */
async function loadPost(site: Site, ctx: HandlerContext, id: number): Promise<ContentDoc | null> {
  if (!ctx.memo.has('post')) {
    let found: ContentDoc | null = null;
    const batch = embeddedTermsBatch(site, ctx.request.shared);
    if (batch && Number.isInteger(id) && id > 0) found = await batch.post(id);
    else if (Number.isInteger(id) && id > 0) {
      for (const type of ['post', 'page']) {
        found = (await site.readModel.get(type, id)) as ContentDoc | null;
        if (found) break;
      }
    }
    ctx.memo.set('post', found);
  }
  return ctx.memo.get('post') as ContentDoc | null;
}
