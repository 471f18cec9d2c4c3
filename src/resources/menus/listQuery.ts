/**
 * The list query of menu items: its args (as the index shows them) and their translation into a read-model
 * QueryPlan. Pure. The posts list's search parsing is reused; menus filter like categories without children.
 */
import type { ArgSchema } from '../../rest/args';
import { contextParam } from '../../rest/schema';
import { restError } from '../../rest/errors';
import type { Filter, Order, QueryPlan } from '../../ports/readModel';
import { formatLocal, parseRestDate } from '../../text/dates';
import { ANY_STATUSES, listStatuses, parseSearch } from '../content/listQuery';
import type { ParsedSearch } from '../content/listQuery';

const ORDERBY = ['author', 'date', 'id', 'include', 'modified', 'parent', 'relevance', 'slug', 'include_slugs', 'title', 'menu_order'] as const;
const SEARCH_COLUMNS = { post_title: 'title', post_content: 'content', post_excerpt: 'excerpt' } as const;

function menusQueryArg(description: string, withOperator: boolean): ArgSchema {
  const properties: Record<string, unknown> = { terms: { description: 'Menu ids.', type: 'array', items: { type: 'integer' }, default: [] } };
  if (withOperator) properties.operator = { description: 'Whether every menu must match (AND) or any (OR).', type: 'string', enum: ['AND', 'OR'], default: 'OR' };
  return {
    description,
    type: ['object', 'array'],
    oneOf: [
      { title: 'Term ID List', description: `${description} As a list of ids.`, type: 'array', items: { type: 'integer' } },
      { title: 'Term ID Taxonomy Query', description: `${description} As a query object.`, type: 'object', properties, additionalProperties: false },
    ],
  } as ArgSchema;
}

const idList = (description: string): ArgSchema => ({ description, type: 'array', items: { type: 'integer' }, default: [] });

/**
 * The collection args in WordPress's order; as for posts, all but context, paging and search are checked late.
 * `status` takes the post list's values on this instance (the second instance adds `ext-disabled`).
 */
export function menuItemListArgs(instance?: string): Record<string, ArgSchema> {
  const args: Record<string, ArgSchema> = {
    context: contextParam('view'),
    page: { description: 'Page of the collection to return.', type: 'integer', default: 1, minimum: 1 },
    per_page: { description: 'Most items to return in one page.', type: 'integer', default: 100, minimum: 1, maximum: 100 },
    search: { description: 'Only items matching this search.', type: 'string' },
    after: { description: 'Only items created after this date.', type: 'string', format: 'date-time' },
    modified_after: { description: 'Only items modified after this date.', type: 'string', format: 'date-time' },
    before: { description: 'Only items created before this date.', type: 'string', format: 'date-time' },
    modified_before: { description: 'Only items modified before this date.', type: 'string', format: 'date-time' },
    exclude: idList('Leave out these ids.'),
    include: idList('Only these ids.'),
    offset: { description: 'Skip this many matches (instead of paging).', type: 'integer' },
    order: { description: 'Sort direction.', type: 'string', default: 'asc', enum: ['asc', 'desc'] },
    orderby: { description: 'Attribute to sort by.', type: 'string', default: 'menu_order', enum: [...ORDERBY] },
    search_columns: { default: [], description: 'Columns the search looks in.', type: 'array', items: { enum: Object.keys(SEARCH_COLUMNS), type: 'string' } },
    slug: { description: 'Only items with these slugs.', type: 'array', items: { type: 'string' } },
    status: { default: 'publish', description: 'Only items with one of these statuses.', type: 'array', items: { enum: [...listStatuses(instance)], type: 'string' } },
    tax_relation: { description: 'How the menu filters combine.', type: 'string', enum: ['AND', 'OR'] },
    menus: menusQueryArg('Only items in these menus.', true),
    menus_exclude: menusQueryArg('No items in these menus.', false),
    menu_order: { description: 'Only items with this menu order.', type: 'integer' },
  };
  const upFront = new Set(['context', 'page', 'per_page', 'search']);
  for (const [name, arg] of Object.entries(args)) if (!upFront.has(name)) arg.lateValidation = true;
  return args;
}

interface MenusQuery {
  terms?: number[];
  operator?: 'AND' | 'OR';
}

const asMenusQuery = (value: unknown): MenusQuery => (Array.isArray(value) ? { terms: value as number[] } : ((value ?? {}) as MenusQuery));

function localKey(value: string, timezone: string): number {
  const ms = parseRestDate(value, timezone);
  if (ms === null) throw restError('rest_invalid_param', 'Invalid parameter(s): date', 400);
  return Date.parse(`${formatLocal(ms, timezone)}Z`);
}

/** Validated list params -> a plan over the `menu_item` collection (projections/menuItems.ts). */
export function buildMenuItemPlan(params: Record<string, any>, timezone: string): QueryPlan {
  const filters: Filter[] = [];
  const statuses = (params.status as string[]).includes('any') ? ANY_STATUSES : (params.status as string[]);
  filters.push({ kind: 'any', field: 'status', values: statuses });

  const include = (params.include as number[] | undefined) ?? [];
  const exclude = (params.exclude as number[] | undefined) ?? [];
  if (include.length > 0) filters.push({ kind: 'any', field: 'id', values: include });
  else if (exclude.length > 0) filters.push({ kind: 'none', field: 'id', values: exclude });

  const range = (field: string, after: unknown, before: unknown) => {
    if (typeof after !== 'string' && typeof before !== 'string') return;
    const filter: Filter = { kind: 'range', field };
    if (typeof after === 'string') filter.gt = localKey(after, timezone);
    if (typeof before === 'string') filter.lt = localKey(before, timezone);
    filters.push(filter);
  };
  range('date', params.after, params.before);
  range('modified', params.modified_after, params.modified_before);

  const slugs = (params.slug as string[] | undefined) ?? [];
  if (slugs.length > 0) filters.push({ kind: 'any', field: 'slug', values: slugs });
  if (typeof params.menu_order === 'number') filters.push({ kind: 'range', field: 'menu_order', gte: params.menu_order, lte: params.menu_order });

  const clauses: Filter[] = [];
  const included = asMenusQuery(params.menus);
  if (included.terms && included.terms.length > 0) clauses.push({ kind: included.operator === 'AND' ? 'all' : 'any', field: 'menus', values: included.terms });
  const excluded = asMenusQuery(params.menus_exclude);
  if (excluded.terms && excluded.terms.length > 0) clauses.push({ kind: 'none', field: 'menus', values: excluded.terms });
  if (clauses.length > 0) filters.push(params.tax_relation === 'OR' && clauses.length > 1 ? { kind: 'or', filters: clauses } : { kind: 'and', filters: clauses });

  let search: ParsedSearch | null = null;
  if (typeof params.search === 'string' && params.search.trim() !== '') {
    search = parseSearch(params.search);
    const chosen = (params.search_columns as string[] | undefined) ?? [];
    const fields = chosen.length > 0 ? chosen.map((c) => SEARCH_COLUMNS[c as keyof typeof SEARCH_COLUMNS]) : ['title', 'excerpt', 'content'];
    filters.push({ kind: 'text', fields, includes: search.includes, excludes: search.excludes });
  }

  const direction = params.order as 'asc' | 'desc';
  let order: Order;
  switch (params.orderby) {
    case 'include':
      if (include.length === 0) throw restError('rest_orderby_include_missing_include', 'You need to define an include parameter to order by include.', 400);
      order = { kind: 'list', field: 'id', values: include };
      break;
    case 'include_slugs':
      order = { kind: 'list', field: 'slug', values: slugs };
      break;
    case 'relevance':
      if (!search) throw restError('rest_no_search_term_defined', 'You need to define a search term to order by relevance.', 400);
      order = { kind: 'relevance', phrase: search.phrase, terms: search.includes, columns: { title: 'title', excerpt: 'excerpt', content: 'content' }, then: { field: 'date', direction: 'desc' } };
      break;
    default:
      order = { kind: 'field', field: params.orderby as string, direction };
  }

  const perPage = params.per_page as number;
  const page = params.page as number;
  const offset = typeof params.offset === 'number' && params.offset > 0 ? params.offset : (page - 1) * perPage;
  return { filters, order, offset, limit: perPage };
}
