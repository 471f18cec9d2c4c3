/**
 * `/core/v2/search`: one list over posts and pages (`type=post`), categories and tags (`type=term`) or post formats
 * (`type=post-format`), open to everyone. Only published posts and pages are found, whoever asks (WordPress's search
 * handler asks for the `publish` status alone). The lists are the read model's queries of each collection, merged.
 */
import type { Site } from '../../site';
import type { ArgSchema } from '../../rest/args/schema';
import type { ResourceSchema } from '../../rest/schema';
import { assertPageInRange, collectionResult, linkQuery, readModelOffset } from '../../rest/collection';
import { allowEveryone } from '../../rest/route';
import type { HandlerContext, RouteDefinition } from '../../rest/route';
import type { Doc, Filter, Order, QueryResult } from '../../ports/readModel';
import { idFilters, parseSearch } from '../content/listQuery';
import type { ParsedSearch } from '../content/listQuery';
import { ancestorPath } from '../content/operations';
import { permalink } from '../content/present';
import { POST_FORMATS } from '../content/schema';
import { renderTitle } from '../../text/render';
import type { ContentDoc } from '../../../projections/content';
import { localTimeKey } from '../../../projections/content';
import { TERM_COLLECTION } from '../../../projections/terms';
import type { TermDoc } from '../../../projections/terms';
import { TAXONOMIES } from '../terms/operations';
import { termLink } from '../terms/present';
import { sanitizeTextField } from '../terms/sanitize';
import type { Taxonomy } from '../terms/events';

const SEARCH_TYPES = ['post', 'term', 'post-format'] as const;
const POST_SUBTYPES = ['post', 'page'] as const;
const TERM_SUBTYPES: readonly Taxonomy[] = ['category', 'post_tag'];
const VIEW_EMBED = ['view', 'embed'];

/** The labels WordPress gives the post formats (standard is not a format one can search). */
const FORMAT_LABELS: Record<string, string> = {
  aside: 'Aside',
  chat: 'Chat',
  gallery: 'Gallery',
  link: 'Link',
  image: 'Image',
  quote: 'Quote',
  status: 'Status',
  video: 'Video',
  audio: 'Audio',
};

export const searchSchema: ResourceSchema = {
  $schema: 'http://json-schema.org/draft-04/schema#',
  title: 'search-result',
  type: 'object',
  properties: {
    id: {
      description: 'Unique identifier for the object.',
      type: ['integer', 'string'],
      context: VIEW_EMBED,
      readonly: true,
    },
    title: { description: 'The title for the object.', type: 'string', context: VIEW_EMBED, readonly: true },
    url: { description: 'URL to the object.', type: 'string', format: 'uri', context: VIEW_EMBED, readonly: true },
    type: { description: 'Object type.', type: 'string', enum: [...SEARCH_TYPES], context: VIEW_EMBED, readonly: true },
    subtype: {
      description: 'Object subtype.',
      type: 'string',
      enum: [...POST_SUBTYPES, ...TERM_SUBTYPES],
      context: VIEW_EMBED,
      readonly: true,
    },
  },
} as unknown as ResourceSchema;

const searchArgs: Record<string, ArgSchema> = {
  context: {
    description: 'Scope under which the request is made; determines fields present in response.',
    type: 'string',
    enum: VIEW_EMBED,
    default: 'view',
  },
  page: { description: 'Current page of the collection.', type: 'integer', default: 1, minimum: 1 },
  per_page: {
    description: 'Maximum number of items to be returned in result set.',
    type: 'integer',
    default: 10,
    minimum: 1,
    maximum: 100,
  },
  search: { description: 'Limit results to those matching a string.', type: 'string' },
  type: {
    default: 'post',
    description: 'Limit results to items of an object type.',
    type: 'string',
    enum: [...SEARCH_TYPES],
  },
  subtype: {
    default: 'any',
    description: 'Limit results to items of one or more object subtypes.',
    type: 'array',
    items: { enum: [...POST_SUBTYPES, ...TERM_SUBTYPES, 'any'], type: 'string' },
  },
  exclude: {
    description: 'Ensure result set excludes specific IDs.',
    type: 'array',
    items: { type: 'integer' },
    default: [],
  },
  include: { description: 'Limit result set to specific IDs.', type: 'array', items: { type: 'integer' }, default: [] },
};

export function searchRoutes(site: Site): RouteDefinition[] {
  return [
    {
      namespace: 'core/v2',
      path: '/core/v2/search',
      schema: searchSchema,
      endpoints: [
        {
          methods: ['GET'],
          args: searchArgs,
          // WordPress does not offer it to /batch/v1.
          // Published items only, whoever asks: the answer depends on the URL and the read model alone.
          cacheable: true,
          permission: allowEveryone,
          handle: (ctx) => search(site, ctx),
        },
      ],
    },
  ];
}

interface Found {
  items: Record<string, unknown>[];
  total: number;
}

async function search(site: Site, ctx: HandlerContext) {
  const p = ctx.params;
  const perPage = p.per_page as number;
  const page = p.page as number;
  const window = { offset: readModelOffset((page - 1) * perPage), limit: perPage };
  const subtypes = ((p.subtype as string[] | string | undefined) ?? 'any') as string[] | string;
  const wanted = (Array.isArray(subtypes) ? subtypes : [subtypes]).map(String);
  const text = typeof p.search === 'string' ? p.search : '';
  const ids = { include: p.include as number[], exclude: p.exclude as number[] };
  let found: Found;
  if (p.type === 'term') found = await searchTerms(site, chosen(wanted, TERM_SUBTYPES), text, ids, window);
  else if (p.type === 'post-format') found = searchFormats(site, text, window);
  else found = await searchPosts(site, chosen(wanted, POST_SUBTYPES), text, ids, window, ctx.actor !== null);
  const url = `${site.apiRoot}core/v2/search`;
  // A page past the last: terms and formats are refused; posts count nothing then (WP_Query counts only a page with
  // rows), so their answer is an empty page with a total of 0.
  assertPageInRange({ total: found.total, page, perPage }, 'rest_search_invalid_page_number');
  const result = collectionResult(found.items, { total: found.total, page, perPage }, url, linkQuery(ctx));
  if (found.total === 0 && page > 1) {
    // WordPress's search links the page before this one, however far past the end: as a collection ending there would.
    const link = collectionResult([], { total: (page - 1) * perPage, page, perPage }, url, linkQuery(ctx)).headers
      ?.Link;
    if (link) result.headers = { ...result.headers, Link: link };
  }
  return result;
}

/**
 * The subtypes asked for among the type's own; `any`, or none of them, means all of them (WordPress then searches
 * every subtype the handler knows).
 */
function chosen<T extends string>(wanted: string[], own: readonly T[]): T[] {
  if (wanted.includes('any')) return [...own];
  const picked = own.filter((subtype) => wanted.includes(subtype));
  return picked.length > 0 ? picked : [...own];
}

const collectionLink = (site: Site) => [{ href: `${site.apiRoot}core/v2/search` }];

// --- posts and pages -------------------------------------------------------------------------------------------

/** WordPress's relevance ranks (see the read model's `relevance` order), to merge the posts' and pages' lists. */
function relevanceRank(doc: ContentDoc, search: ParsedSearch): number {
  const has = (text: string, term: string) => text.toLowerCase().includes(term.toLowerCase());
  const terms = search.includes.filter((term) => term !== '');
  if (has(doc.title, search.phrase)) return 1;
  if (terms.length > 0 && terms.every((term) => has(doc.title, term))) return 2;
  if (terms.length > 0 && terms.some((term) => has(doc.title, term))) return 3;
  if (has(doc.excerpt, search.phrase)) return 4;
  if (has(doc.content, search.phrase)) return 5;
  return 6;
}

async function searchPosts(
  site: Site,
  types: ('post' | 'page')[],
  text: string,
  ids: { include: number[]; exclude: number[] },
  window: { offset: number; limit: number },
  signedIn: boolean,
): Promise<Found> {
  const filters: Filter[] = [
    { kind: 'any', field: 'status', values: ['publish'] },
    ...idFilters(ids.include, ids.exclude),
  ];
  const parsed = text.trim() === '' ? null : parseSearch(text);
  if (parsed) {
    filters.push({
      kind: 'text',
      fields: ['title', 'excerpt', 'content'],
      includes: parsed.includes,
      excludes: parsed.excludes,
    });
    // As WP_Query: a search by an anonymous caller leaves password-protected items out.
    if (!signedIn) filters.push({ kind: 'none', field: 'protected', values: [1] });
  }
  const byDate: Order = { kind: 'field', field: 'date', direction: 'desc' };
  const order: Order = parsed
    ? {
        kind: 'relevance',
        phrase: parsed.phrase,
        terms: parsed.includes,
        columns: { title: 'title', excerpt: 'excerpt', content: 'content' },
        tieBreak: byDate,
      }
    : byDate;
  let onPage: ContentDoc[];
  let lists: QueryResult[];
  if (types.length === 1) {
    lists = [await site.readModel.query(types[0]!, { filters, order, ...window })];
    onPage = lists[0]!.items as ContentDoc[];
  } else {
    // Each list up to the end of the page asked for, then merged in the same order: the page is then exact.
    lists = await Promise.all(
      types.map((type) =>
        site.readModel.query(type, {
          filters,
          order,
          offset: 0,
          limit: Math.min(window.offset + window.limit, Number.MAX_SAFE_INTEGER),
        }),
      ),
    );
    const merged = lists
      .flatMap((list) => list.items as ContentDoc[])
      .sort(
        (a, b) =>
          (parsed ? relevanceRank(a, parsed) - relevanceRank(b, parsed) : 0) ||
          localTimeKey(b.date) - localTimeKey(a.date) ||
          b.id - a.id,
      );
    onPage = merged.slice(window.offset, window.offset + window.limit);
  }
  const items = await Promise.all(onPage.map((doc) => presentPost(site, doc)));
  return { items, total: items.length === 0 ? 0 : lists.reduce((sum, list) => sum + list.total, 0) };
}

async function presentPost(site: Site, doc: ContentDoc): Promise<Record<string, unknown>> {
  const parentPath = doc.type === 'page' && doc.parent > 0 ? await ancestorPath(site, doc.parent) : '';
  const plural = doc.type === 'page' ? 'pages' : 'posts';
  return {
    id: doc.id,
    // Rendered as titles are, but without the "Protected:" prefix: WordPress's search answers leave it out.
    title: renderTitle(doc.title),
    url: permalink(doc, site.settings.siteUrl, parentPath),
    type: 'post',
    subtype: doc.type,
    _links: {
      self: [{ embeddable: true, href: `${site.apiRoot}core/v2/${plural}/${doc.id}` }],
      about: [{ href: `${site.apiRoot}core/v2/types/${doc.type}` }],
      collection: collectionLink(site),
    },
  };
}

// --- terms -----------------------------------------------------------------------------------------------------

async function searchTerms(
  site: Site,
  taxonomies: Taxonomy[],
  text: string,
  ids: { include: number[]; exclude: number[] },
  window: { offset: number; limit: number },
): Promise<Found> {
  const filters: Filter[] = [
    { kind: 'any', field: 'taxonomy', values: taxonomies },
    ...idFilters(ids.include, ids.exclude),
  ];
  const search = sanitizeTextField(text);
  if (search !== '') filters.push({ kind: 'text', fields: ['name', 'slug'], includes: [search], excludes: [] });
  const result = await site.readModel.query(TERM_COLLECTION, {
    filters,
    order: { kind: 'field', field: 'name', direction: 'asc' },
    ...window,
  });
  const docs = result.items as TermDoc[];
  const items = await Promise.all(docs.map((doc) => presentTerm(site, doc)));
  return { items, total: result.total };
}

async function presentTerm(site: Site, doc: TermDoc): Promise<Record<string, unknown>> {
  const tax = TAXONOMIES[doc.taxonomy];
  const ancestors: string[] = [];
  const seen = new Set<number>();
  for (let parent = doc.parent; tax.hierarchical && parent > 0 && !seen.has(parent); ) {
    seen.add(parent);
    const up = (await site.readModel.get(TERM_COLLECTION, parent)) as (TermDoc & Doc) | null;
    if (!up) break;
    ancestors.push(up.slug);
    parent = up.parent;
  }
  return {
    id: doc.id,
    title: doc.name,
    url: termLink(doc, tax, site.settings.siteUrl, ancestors),
    // WordPress 6.1 names the taxonomy as the type and gives no subtype for a term.
    type: doc.taxonomy,
    _links: {
      self: [{ embeddable: true, href: `${site.apiRoot}core/v2/${tax.restBase}/${doc.id}` }],
      about: [{ href: `${site.apiRoot}core/v2/taxonomies/${doc.taxonomy}` }],
      collection: collectionLink(site),
    },
  };
}

// --- post formats ----------------------------------------------------------------------------------------------

/** Post formats are a fixed list: searched by label, in WordPress's order. */
function searchFormats(site: Site, text: string, window: { offset: number; limit: number }): Found {
  const needle = text.toLowerCase();
  const matches = POST_FORMATS.filter((format) => format !== 'standard').filter((format) =>
    FORMAT_LABELS[format]!.toLowerCase().includes(needle),
  );
  const items = matches.slice(window.offset, window.offset + window.limit).map((format) => ({
    id: format,
    title: FORMAT_LABELS[format],
    url: `${site.settings.siteUrl}/type/${format}/`,
    type: 'post-format',
    _links: { collection: collectionLink(site) },
  }));
  return { items, total: matches.length };
}
