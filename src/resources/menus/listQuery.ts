/**
 * The list query of menu items: its args (as the index shows them) and their translation into a read-model
 * QueryPlan. Pure. The posts list's filters (status, ids, dates, slugs, search), order and paging are reused;
 * menus filter like categories without children.
 */
import type { ArgSchema } from '../../rest/args/schema';
import { contextParam } from '../../rest/schema';
import { collectionParams, offsetArg, sortArgs } from '../../rest/collectionParams';
import type { Filter, QueryPlan } from '../../ports/readModel';
import {
  ANY_STATUSES,
  termQueryArg,
  dateFilters,
  idFilters,
  idList,
  listOrder,
  listStatuses,
  listWindow,
  searchColumnsArg,
  searchFilter,
  slugFilters,
  slugList,
  statusFilter,
} from '../content/listQuery';

const ORDERBY = [
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
  'menu_order',
] as const;

/**
 * The collection args in WordPress's order; as for posts, all but context, paging and search are checked late.
 * `status` takes the post list's values, with the statuses the instance registers (src/instances/).
 */
export function menuItemListArgs(registeredStatuses: readonly string[]): Record<string, ArgSchema> {
  const args: Record<string, ArgSchema> = {
    ...collectionParams({
      context: contextParam('view'),
      perPageDefault: 100,
      search: 'Only items matching this search.',
    }),
    after: { description: 'Only items created after this date.', type: 'string', format: 'date-time' },
    modified_after: { description: 'Only items modified after this date.', type: 'string', format: 'date-time' },
    before: { description: 'Only items created before this date.', type: 'string', format: 'date-time' },
    modified_before: { description: 'Only items modified before this date.', type: 'string', format: 'date-time' },
    exclude: idList('Leave out these ids.'),
    include: idList('Only these ids.'),
    offset: offsetArg(),
    ...sortArgs('asc', 'menu_order', ORDERBY),
    search_columns: searchColumnsArg(),
    slug: { description: 'Only items with these slugs.', type: 'array', items: { type: 'string' } },
    status: {
      default: 'publish',
      description: 'Only items with one of these statuses.',
      type: 'array',
      items: { enum: [...listStatuses(registeredStatuses)], type: 'string' },
    },
    tax_relation: { description: 'How the menu filters combine.', type: 'string', enum: ['AND', 'OR'] },
    menus: termQueryArg('Only items in these menus.', { children: false, operator: true, noun: 'menu' }),
    menus_exclude: termQueryArg('No items in these menus.', { children: false, operator: false, noun: 'menu' }),
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

const asMenusQuery = (value: unknown): MenusQuery =>
  Array.isArray(value) ? { terms: value as number[] } : ((value ?? {}) as MenusQuery);

/** Validated list params -> a plan over the `menu_item` collection (projections/menuItems.ts). */
export function buildMenuItemPlan(params: Record<string, unknown>, timezone: string): QueryPlan {
  const filters: Filter[] = [];
  filters.push(statusFilter(params.status as string[], ANY_STATUSES));

  const include = (params.include as number[] | undefined) ?? [];
  filters.push(...idFilters(include, (params.exclude as number[] | undefined) ?? []));
  filters.push(...dateFilters(params, timezone));

  const slugs = slugList(params.slug);
  filters.push(...slugFilters(slugs));
  if (typeof params.menu_order === 'number')
    filters.push({ kind: 'range', field: 'menu_order', gte: params.menu_order, lte: params.menu_order });

  const clauses: Filter[] = [];
  const included = asMenusQuery(params.menus);
  if (included.terms && included.terms.length > 0)
    clauses.push({ kind: included.operator === 'AND' ? 'all' : 'any', field: 'menus', values: included.terms });
  const excluded = asMenusQuery(params.menus_exclude);
  if (excluded.terms && excluded.terms.length > 0)
    clauses.push({ kind: 'none', field: 'menus', values: excluded.terms });
  if (clauses.length > 0)
    filters.push(
      params.tax_relation === 'OR' && clauses.length > 1
        ? { kind: 'or', filters: clauses }
        : { kind: 'and', filters: clauses },
    );

  const searched = searchFilter(params);
  if (searched) filters.push(searched.filter);

  return { filters, order: listOrder(params, include, slugs, searched?.search ?? null), ...listWindow(params) };
}
