/**
 * The list query language of posts and pages: the collection args (as the index shows them) and their
 * translation into a read-model QueryPlan. Pure: term-tree lookups and the caller come in as arguments.
 */
import type { ArgSchema } from '../../rest/args/schema';
import { contextParam } from '../../rest/schema';
import { collectionParams, offsetArg, sortArgs } from '../../rest/collectionParams';
import { restError } from '../../rest/errors';
import type { Filter, Order, QueryPlan } from '../../ports/readModel';
import { formatLocal, parseRestDate } from '../../text/dates';
import { localTimeKey } from '../../../projections/content';
import { assertPageInRange, offsetGiven, readModelOffset } from '../../rest/collection';
import type { Page } from '../../rest/collection';
import { sanitizeSlug } from '../../text/slug';
import type { PostType } from './events';

/** Every status a list may filter by (writable ones plus WordPress's internal ones), and `any`. */
export const LIST_STATUSES = [
  'publish',
  'future',
  'draft',
  'pending',
  'private',
  'trash',
  'auto-draft',
  'inherit',
  'request-pending',
  'request-confirmed',
  'request-failed',
  'request-completed',
  'any',
] as const;

/** `status=any` means every status that shows in searches: not trash, not auto-draft. */
export const ANY_STATUSES = [
  'publish',
  'future',
  'draft',
  'pending',
  'private',
  'inherit',
  'request-pending',
  'request-confirmed',
  'request-failed',
  'request-completed',
];

/** The list filter values with the statuses the instance registers (src/instances/): they come before `any`. */
export const listStatuses = (registered: readonly string[]): readonly string[] => [
  ...LIST_STATUSES.slice(0, -1),
  ...registered,
  'any',
];

/** What `any` covers with the statuses the instance registers: a registered status shows in searches unless it says otherwise. */
export const anyStatuses = (registered: readonly string[]): readonly string[] => [...ANY_STATUSES, ...registered];

const SEARCH_COLUMNS = { post_title: 'title', post_content: 'content', post_excerpt: 'excerpt' } as const;

/** The `search_columns` arg of a post-type list: which of the text columns a search looks in. */
export const searchColumnsArg = (): ArgSchema => ({
  default: [],
  description: 'Columns the search looks in.',
  type: 'array',
  items: { enum: Object.keys(SEARCH_COLUMNS), type: 'string' },
});

/**
 * A taxonomy filter: a list of term ids or a taxonomy-query object. `noun` names the terms in the object's
 * descriptions ("term" for categories and tags, "menu" for menus).
 */
export function termQueryArg(
  description: string,
  options: { children: boolean; operator: boolean; noun?: string },
): ArgSchema {
  const noun = options.noun ?? 'term';
  const properties: Record<string, unknown> = {
    terms: {
      description: `${noun[0]!.toUpperCase()}${noun.slice(1)} ids.`,
      type: 'array',
      items: { type: 'integer' },
      default: [],
    },
  };
  if (options.children)
    properties.include_children = { description: 'Whether to include child terms.', type: 'boolean', default: false };
  if (options.operator)
    properties.operator = {
      description: `Whether every ${noun} must match (AND) or any (OR).`,
      type: 'string',
      enum: ['AND', 'OR'],
      default: 'OR',
    };
  return {
    description,
    type: ['object', 'array'],
    oneOf: [
      {
        title: 'Term ID List',
        description: `${description} As a list of ids.`,
        type: 'array',
        items: { type: 'integer' },
      },
      {
        title: 'Term ID Taxonomy Query',
        description: `${description} As a query object.`,
        type: 'object',
        properties,
        additionalProperties: false,
      },
    ],
  } as ArgSchema;
}

export const idList = (description: string): ArgSchema => ({
  description,
  type: 'array',
  items: { type: 'integer' },
  default: [],
});

export interface ListArgsOptions {
  /**
   * The caller-dependent rule on `status` (filtering beyond publish needs rights), run while sanitizing. It may
   * look at the value and the request's caller only (see ArgSchema.validateDependsOnCallerOnly).
   */
  statusRule?: ArgSchema['validate'];
  /** The `status` values accepted (default: the first instance's, LIST_STATUSES). */
  statuses?: readonly string[];
}

/**
 * The collection args in the order WordPress registers them. As in WordPress, only context, page, per_page
 * and search are validated up front; the other filters are checked while sanitizing, in a second round (so
 * an invalid `order` is reported only once context and paging are valid).
 */
export function contentListArgs(postType: PostType, options: ListArgsOptions = {}): Record<string, ArgSchema> {
  const isPage = postType === 'page';
  // Reusable blocks have no author, and take WordPress 6.1's arguments only (no search_columns).
  const isBlock = postType === 'wp_block';
  const orderby = [
    'author',
    'date',
    'id',
    'include',
    'modified',
    'parent',
    'relevance',
    'slug',
    'include_slugs',
    'title',
    ...(isPage ? ['menu_order'] : []),
  ];
  const args: Record<string, ArgSchema> = {
    ...collectionParams({ context: contextParam('view'), search: 'Only items matching this search.' }),
    after: { description: 'Only items published after this date.', type: 'string', format: 'date-time' },
    modified_after: { description: 'Only items modified after this date.', type: 'string', format: 'date-time' },
    ...(isBlock
      ? {}
      : { author: idList('Only items by these authors.'), author_exclude: idList('No items by these authors.') }),
    before: { description: 'Only items published before this date.', type: 'string', format: 'date-time' },
    modified_before: { description: 'Only items modified before this date.', type: 'string', format: 'date-time' },
    exclude: idList('Leave out these ids.'),
    include: idList('Only these ids.'),
  };
  if (isPage) args.menu_order = { description: 'Only pages with this menu order.', type: 'integer' };
  Object.assign(args, {
    offset: offsetArg(),
    ...sortArgs('desc', 'date', orderby),
  });
  if (isPage) {
    args.parent = idList('Only pages with these parents.');
    args.parent_exclude = idList('No pages with these parents.');
  }
  if (!isBlock) args.search_columns = searchColumnsArg();
  Object.assign(args, {
    slug: { description: 'Only items with these slugs.', type: 'array', items: { type: 'string' } },
    status: {
      default: 'publish',
      description: 'Only items with one of these statuses.',
      type: 'array',
      items: { enum: [...(options.statuses ?? LIST_STATUSES)], type: 'string' },
      ...(options.statusRule ? { validate: options.statusRule, validateDependsOnCallerOnly: true } : {}),
    },
  });
  if (postType === 'post') {
    Object.assign(args, {
      tax_relation: { description: 'How the term filters combine.', type: 'string', enum: ['AND', 'OR'] },
      categories: termQueryArg('Only items in these categories.', { children: true, operator: true }),
      categories_exclude: termQueryArg('No items in these categories.', { children: true, operator: false }),
      tags: termQueryArg('Only items with these tags.', { children: false, operator: true }),
      tags_exclude: termQueryArg('No items with these tags.', { children: false, operator: false }),
      sticky: { description: 'Only sticky items (true), or none of them (false).', type: 'boolean' },
    });
  }
  const upFront = new Set(['context', 'page', 'per_page', 'search']);
  for (const [name, arg] of Object.entries(args)) if (!upFront.has(name)) arg.lateValidation = true;
  return args;
}

const STOPWORDS = new Set(
  'about an are as at be by com for from how in is it of on or that the this to was what when where who will with www'.split(
    ' ',
  ),
);

export interface ParsedSearch {
  /** The whole search string, for relevance. */
  phrase: string;
  includes: string[];
  excludes: string[];
}

/**
 * WordPress's search parsing: terms split on spaces, commas and plus signs; "quoted phrases" kept whole;
 * `-term` excludes; single letters and stopwords dropped; nothing left (or more than nine terms) means the
 * whole string is one term.
 */
export function parseSearch(search: string): ParsedSearch {
  const phrase = search.replace(/\s+/g, ' ').trim();
  const raw = phrase.match(/"[^"]*"|[^\s,+]+/g) ?? [];
  const terms: string[] = [];
  for (let token of raw) {
    if (token.startsWith('"') && token.endsWith('"') && token.length >= 2) token = token.slice(1, -1);
    token = token.trim();
    if (token === '') continue;
    const bare = token.startsWith('-') ? token.slice(1) : token;
    if (/^[a-z-]$/i.test(token) || STOPWORDS.has(bare.toLowerCase())) continue;
    terms.push(token);
  }
  const chosen = terms.length === 0 || terms.length > 9 ? [phrase] : terms;
  const includes: string[] = [];
  const excludes: string[] = [];
  for (const term of chosen) {
    if (term.length > 1 && term.startsWith('-')) excludes.push(term.slice(1));
    else includes.push(term);
  }
  return { phrase, includes, excludes };
}

export interface ListContext {
  postType: PostType;
  timezone: string;
  /** Anonymous searches leave password-protected items out. */
  signedIn: boolean;
  /** The category ids below the given ones (for include_children). */
  descendants(ids: readonly number[]): Promise<number[]>;
  /** What `status=any` covers (default ANY_STATUSES). */
  anyStatuses?: readonly string[];
}

interface TermQuery {
  terms: number[];
  include_children?: boolean;
  operator?: 'AND' | 'OR';
}

const asTermQuery = (value: unknown): TermQuery =>
  Array.isArray(value) ? { terms: value as number[] } : ((value ?? { terms: [] }) as TermQuery);

/** A date-time argument as the sortable site-local key the content projection indexes dates with. */
function localKey(value: string, timezone: string): number {
  const ms = parseRestDate(value, timezone);
  if (ms === null) throw restError('rest_invalid_param', 'Invalid parameter(s): date', 400);
  return localTimeKey(formatLocal(ms, timezone));
}

/** The `status` filter; `any` stands for `anySet`. */
export function statusFilter(status: string[], anySet: readonly string[]): Filter {
  return { kind: 'any', field: 'status', values: status.includes('any') ? (anySet as string[]) : status };
}

/** `include`, or else `exclude`, as id filters (WordPress ignores `exclude` when `include` is given). */
export function idFilters(include: number[], exclude: number[]): Filter[] {
  if (include.length > 0) return [{ kind: 'any', field: 'id', values: include }];
  return exclude.length > 0 ? [{ kind: 'none', field: 'id', values: exclude }] : [];
}

/** The `after`/`before` and `modified_after`/`modified_before` bounds, as ranges over the site-local date keys. */
export function dateFilters(params: Record<string, unknown>, timezone: string): Filter[] {
  const filters: Filter[] = [];
  const range = (field: string, after: unknown, before: unknown) => {
    if (typeof after !== 'string' && typeof before !== 'string') return;
    const filter: Filter = { kind: 'range', field };
    if (typeof after === 'string') filter.gt = localKey(after, timezone);
    if (typeof before === 'string') filter.lt = localKey(before, timezone);
    filters.push(filter);
  };
  range('date', params.after, params.before);
  range('modified', params.modified_after, params.modified_before);
  return filters;
}

/**
 * The `slug` list as WordPress reads it: each entry made a slug the way titles are (`HELLO-WORLD` finds
 * `hello-world`, `日本` its percent-encoded form), duplicates dropped. An entry with nothing left is kept as the
 * empty slug, which finds the drafts that were never named, as in WordPress.
 */
export const slugList = (param: unknown): string[] => [
  ...new Set(((param as string[] | undefined) ?? []).map((slug) => sanitizeSlug(slug))),
];

export const slugFilters = (slugs: string[]): Filter[] =>
  slugs.length > 0 ? [{ kind: 'any', field: 'slug', values: slugs }] : [];

/** The text filter of a non-blank `search`, in the chosen `search_columns`, with the parsed search for relevance. */
export function searchFilter(params: Record<string, unknown>): { search: ParsedSearch; filter: Filter } | null {
  if (typeof params.search !== 'string' || params.search.trim() === '') return null;
  const search = parseSearch(params.search);
  const chosen = (params.search_columns as string[] | undefined) ?? [];
  const fields =
    chosen.length > 0
      ? chosen.map((c) => SEARCH_COLUMNS[c as keyof typeof SEARCH_COLUMNS])
      : ['title', 'excerpt', 'content'];
  return { search, filter: { kind: 'text', fields, includes: search.includes, excludes: search.excludes } };
}

/** The order of a post-type list: by the `include` or `slug` list, by relevance to the search, or by a field. */
export function listOrder(
  params: Record<string, unknown>,
  include: number[],
  slugs: string[],
  search: ParsedSearch | null,
): Order {
  switch (params.orderby) {
    case 'include':
      if (include.length === 0)
        throw restError(
          'rest_orderby_include_missing_include',
          'You need to define an include parameter to order by include.',
          400,
        );
      return { kind: 'list', field: 'id', values: include };
    case 'include_slugs':
      return { kind: 'list', field: 'slug', values: slugs };
    case 'relevance':
      if (!search)
        throw restError('rest_no_search_term_defined', 'You need to define a search term to order by relevance.', 400);
      return {
        kind: 'relevance',
        phrase: search.phrase,
        terms: search.includes,
        columns: { title: 'title', excerpt: 'excerpt', content: 'content' },
        tieBreak: { field: 'date', direction: 'desc' },
      };
    default:
      return { kind: 'field', field: params.orderby as string, direction: params.order as 'asc' | 'desc' };
  }
}

/**
 * Which matches a page holds, as WP_Query picks them (posts, pages, media, menu items): a non-zero `offset` wins over
 * paging and skips its absolute value; page 0 (`page=1e400` is 0, as PHP casts it) is the first page. An offset beyond
 * 2^53 (`offset=99999999999999999999`, a huge `page`) is held at 2^53 - 1: past every match either way, and the read
 * model takes only safe integers.
 */
export function listWindow(params: Record<string, unknown>): { offset: number; limit: number } {
  const perPage = params.per_page as number;
  const page = params.page as number;
  const offset = offsetGiven(params) ? Math.abs(params.offset) : (Math.max(page, 1) - 1) * perPage;
  return { offset: readModelOffset(offset), limit: perPage };
}

/**
 * The paging a WP_Query list reports, given the read model's total and how many matches the page holds. WordPress
 * counts the matches only when the page holds some, so a page an `offset` leaves empty reports a total of 0 (and is
 * then never out of range); a page past the last one without an offset is refused.
 */
export function listPaging(params: Record<string, unknown>, total: number, onPage: number): Page {
  const paging = {
    total: offsetGiven(params) && onPage === 0 ? 0 : total,
    page: params.page as number,
    perPage: params.per_page as number,
  };
  assertPageInRange(paging);
  return paging;
}

/** Translates validated list params into a plan. Throws WordPress's errors for contradictory params. */
export async function buildListPlan(params: Record<string, unknown>, ctx: ListContext): Promise<QueryPlan> {
  const filters: Filter[] = [];
  filters.push(statusFilter(params.status as string[], ctx.anyStatuses ?? ANY_STATUSES));

  const include = (params.include as number[] | undefined) ?? [];
  filters.push(...idFilters(include, (params.exclude as number[] | undefined) ?? []));

  const author = (params.author as number[] | undefined) ?? [];
  const authorExclude = (params.author_exclude as number[] | undefined) ?? [];
  if (author.length > 0) filters.push({ kind: 'any', field: 'author', values: author });
  if (authorExclude.length > 0) filters.push({ kind: 'none', field: 'author', values: authorExclude });

  filters.push(...dateFilters(params, ctx.timezone));

  const slugs = slugList(params.slug);
  filters.push(...slugFilters(slugs));

  if (ctx.postType === 'page') {
    const parent = (params.parent as number[] | undefined) ?? [];
    const parentExclude = (params.parent_exclude as number[] | undefined) ?? [];
    if (parent.length > 0) filters.push({ kind: 'any', field: 'parent', values: parent });
    if (parentExclude.length > 0) filters.push({ kind: 'none', field: 'parent', values: parentExclude });
    if (typeof params.menu_order === 'number')
      filters.push({ kind: 'range', field: 'menu_order', gte: params.menu_order, lte: params.menu_order });
  }

  if (ctx.postType === 'post') {
    if (params.sticky === true) filters.push({ kind: 'any', field: 'sticky', values: [1] });
    if (params.sticky === false) filters.push({ kind: 'none', field: 'sticky', values: [1] });
    const clauses: Filter[] = [];
    for (const [param, field, mode] of [
      ['categories', 'categories', 'include'],
      ['categories_exclude', 'categories', 'exclude'],
      ['tags', 'tags', 'include'],
      ['tags_exclude', 'tags', 'exclude'],
    ] as const) {
      const query = asTermQuery(params[param]);
      if (!query.terms || query.terms.length === 0) continue;
      const terms =
        field === 'categories' && query.include_children
          ? [...new Set([...query.terms, ...(await ctx.descendants(query.terms))])]
          : query.terms;
      if (mode === 'exclude') clauses.push({ kind: 'none', field, values: terms });
      else if (query.operator === 'AND') clauses.push({ kind: 'all', field, values: query.terms });
      else clauses.push({ kind: 'any', field, values: terms });
    }
    if (clauses.length > 0)
      filters.push(
        params.tax_relation === 'OR' && clauses.length > 1
          ? { kind: 'or', filters: clauses }
          : { kind: 'and', filters: clauses },
      );
  }

  const searched = searchFilter(params);
  if (searched) {
    filters.push(searched.filter);
    if (!ctx.signedIn) filters.push({ kind: 'none', field: 'protected', values: [1] });
  }

  return { filters, order: listOrder(params, include, slugs, searched?.search ?? null), ...listWindow(params) };
}
