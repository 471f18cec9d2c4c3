/**
 * The paging, search and sort arguments of a collection route, written once: `context`, `page`, `per_page` and
 * `search` lead every list's args (as WordPress's collection params lead every controller's), and `offset`, `order`
 * and `orderby` come later, where each list places them. Each call makes new objects, so a route may add to its own
 * (menu items mark theirs `lateValidation`).
 */
import type { ArgSchema } from './args/schema';

export interface CollectionParamsOptions {
  /** The `context` argument, first; none without it. */
  context?: ArgSchema;
  /** What a page holds, in `per_page`'s description ("Most items to return in one page."). */
  noun?: string;
  /** `per_page`'s default: 10 unless given; null for none. */
  perPageDefault?: number | null;
  /** The `search` argument's description; without it there is no `search` argument. */
  search?: string;
}

/** `context` (when given), `page`, `per_page` and `search` (when described), in that order. */
export function collectionParams(options: CollectionParamsOptions = {}): Record<string, ArgSchema> {
  const { context, noun = 'items', perPageDefault = 10, search } = options;
  const perPageDescription = `Most ${noun} to return in one page.`;
  return {
    ...(context ? { context } : {}),
    page: { description: 'Page of the collection to return.', type: 'integer', default: 1, minimum: 1 },
    per_page:
      perPageDefault === null
        ? { description: perPageDescription, type: 'integer', minimum: 1, maximum: 100 }
        : { description: perPageDescription, type: 'integer', default: perPageDefault, minimum: 1, maximum: 100 },
    ...(search !== undefined ? { search: { description: search, type: 'string' } } : {}),
  };
}

/** The `offset` argument: skip this many matches, instead of paging by `page`. */
export function offsetArg(description = 'Skip this many matches (instead of paging).'): ArgSchema {
  return { description, type: 'integer' };
}

/** `order` (asc or desc, by default `direction`) and `orderby` (one of `keys`, by default `key`). */
export function sortArgs(
  direction: 'asc' | 'desc',
  key: string,
  keys: readonly string[],
): { order: ArgSchema; orderby: ArgSchema } {
  return {
    order: { description: 'Sort direction.', type: 'string', default: direction, enum: ['asc', 'desc'] },
    orderby: { description: 'Attribute to sort by.', type: 'string', default: key, enum: [...keys] },
  };
}
