/**
 * The rules both read-model engines (src/readModel/memory, src/adapters/redis) apply to a list-query plan: scalar
 * order, plan validation (`checkPlan`, called first by both, so they reject the same plans), range bounds, search
 * terms, and the partition shape a plan pages by rank in (IndexEntry.partitions).
 */
import type { Direction, Filter, Order, QueryPlan, Scalar } from '../ports/readModel';

/** The total order of scalars: numbers numerically, before strings by UTF-16 code units. */
export function compareScalars(a: Scalar, b: Scalar): number {
  if (typeof a === 'number') {
    if (typeof b !== 'number') return -1;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  if (typeof b === 'number') return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

export function isScalar(value: unknown): value is Scalar {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

/** -0 and 0 are one value (JSON cannot tell them apart either). */
export function norm(value: Scalar): Scalar {
  return value === 0 ? 0 : value;
}

export function invalid(message: string): never {
  throw new TypeError(`read model: ${message}`);
}
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkValues(values: unknown, where: string): void {
  if (!Array.isArray(values) || !values.every(isScalar)) invalid(`${where}: values must be finite numbers or strings`);
}

function checkStrings(values: unknown, where: string): void {
  if (!Array.isArray(values) || !values.every((v) => typeof v === 'string')) invalid(`${where} must be strings`);
}

function checkFilter(filter: Filter): void {
  if (!isRecord(filter)) invalid('a filter must be an object');
  switch (filter.kind) {
    case 'any':
    case 'all':
    case 'none':
      if (typeof filter.field !== 'string') invalid(`${filter.kind} filter needs a field`);
      checkValues(filter.values, `${filter.kind} filter`);
      return;
    case 'range':
      if (typeof filter.field !== 'string') invalid('range filter needs a field');
      for (const bound of [filter.gt, filter.gte, filter.lt, filter.lte]) {
        if (bound !== undefined && !isScalar(bound)) invalid('range bounds must be finite numbers or strings');
      }
      return;
    case 'text':
      checkStrings(filter.fields, 'text filter fields');
      checkStrings(filter.includes, 'text filter includes');
      checkStrings(filter.excludes, 'text filter excludes');
      return;
    case 'or':
    case 'and':
      if (!Array.isArray(filter.filters)) invalid(`${filter.kind} filter needs filters`);
      filter.filters.forEach(checkFilter);
      return;
    default:
      invalid(`unknown filter kind ${JSON.stringify((filter as { kind: unknown }).kind)}`);
  }
}

function checkDirection(direction: unknown): void {
  if (direction !== 'asc' && direction !== 'desc') invalid('direction must be asc or desc');
}

/** Validates a plan; both adapters call it first, so they reject the same plans. */
export function checkPlan(plan: QueryPlan): void {
  if (!isRecord(plan) || !Array.isArray(plan.filters)) invalid('a plan needs filters');
  if (!Number.isSafeInteger(plan.offset) || plan.offset < 0) invalid('offset must be a non-negative integer');
  if (plan.limit !== null && (!Number.isSafeInteger(plan.limit) || plan.limit < 0)) {
    invalid('limit must be null or a non-negative integer');
  }
  plan.filters.forEach(checkFilter);
  const order: Order = plan.order;
  if (!isRecord(order)) invalid('a plan needs an order');
  switch (order.kind) {
    case 'field':
      if (typeof order.field !== 'string') invalid('field order needs a field');
      checkDirection(order.direction);
      return;
    case 'list':
      if (typeof order.field !== 'string') invalid('list order needs a field');
      checkValues(order.values, 'list order');
      return;
    case 'relevance':
      if (typeof order.phrase !== 'string') invalid('relevance order needs a phrase');
      checkStrings(order.terms, 'relevance terms');
      if (!isRecord(order.columns)) invalid('relevance order needs columns');
      checkStrings([order.columns.title, order.columns.excerpt, order.columns.content], 'relevance columns');
      if (!isRecord(order.tieBreak) || typeof order.tieBreak.field !== 'string')
        invalid('relevance order needs `tieBreak`');
      checkDirection(order.tieBreak.direction);
      return;
    default:
      invalid(`unknown order kind ${JSON.stringify((order as { kind: unknown }).kind)}`);
  }
}

/** A range filter's bounds, the tighter of gt/gte and of lt/lte. */
export interface Bounds {
  lo?: Scalar;
  loIncl: boolean;
  hi?: Scalar;
  hiIncl: boolean;
}

export function rangeBounds(filter: Extract<Filter, { kind: 'range' }>): Bounds {
  const bounds: Bounds = { loIncl: true, hiIncl: true };
  if (filter.gte !== undefined) bounds.lo = norm(filter.gte);
  if (filter.gt !== undefined && (bounds.lo === undefined || compareScalars(filter.gt, bounds.lo) >= 0)) {
    bounds.lo = norm(filter.gt);
    bounds.loIncl = false;
  }
  if (filter.lte !== undefined) bounds.hi = norm(filter.lte);
  if (filter.lt !== undefined && (bounds.hi === undefined || compareScalars(filter.lt, bounds.hi) <= 0)) {
    bounds.hi = norm(filter.lt);
    bounds.hiIncl = false;
  }
  return bounds;
}

export function aboveLo(key: Scalar, b: Bounds): boolean {
  if (b.lo === undefined) return true;
  const c = compareScalars(key, b.lo);
  return c > 0 || (c === 0 && b.loIncl);
}

export function belowHi(key: Scalar, b: Bounds): boolean {
  if (b.hi === undefined) return true;
  const c = compareScalars(key, b.hi);
  return c < 0 || (c === 0 && b.hiIncl);
}

/** Search terms as matched: lowercased, empty ones dropped, duplicates dropped. */
export function searchTerms(terms: readonly string[]): string[] {
  return [...new Set(terms.filter((t) => t !== '').map((t) => t.toLowerCase()))];
}

export function distinctValues(values: readonly Scalar[]): Scalar[] {
  return [...new Set(values.map(norm))];
}

/** A plan both adapters can page by rank within one partition (see IndexEntry.partitions). */
export interface PartitionShape {
  field: string;
  value: Scalar;
  /** The order's sort key, or `id`. */
  order: string;
  direction: Direction;
  /** A range filter on the order key itself (never on `id`). */
  bounds?: Bounds;
}

/**
 * The partition shape of a plan: ordered by a field, filtered by exactly one value of one set field (`any` with
 * one distinct value) and at most a range on the order key, nested `and`s flattened. Anything else: null.
 */
export function partitionShape(plan: QueryPlan): PartitionShape | null {
  const order = plan.order;
  if (order.kind !== 'field') return null;
  const flat: Filter[] = [];
  const flatten = (filters: readonly Filter[]) => {
    for (const f of filters) {
      if (f.kind === 'and') flatten(f.filters);
      else flat.push(f);
    }
  };
  flatten(plan.filters);
  let part: { field: string; value: Scalar } | undefined;
  let range: Extract<Filter, { kind: 'range' }> | undefined;
  for (const f of flat) {
    if (f.kind === 'any' && f.field !== 'id' && part === undefined) {
      const values = distinctValues(f.values);
      if (values.length !== 1) return null;
      part = { field: f.field, value: values[0]! };
    } else if (f.kind === 'range' && f.field === order.field && order.field !== 'id' && range === undefined) {
      range = f;
    } else return null;
  }
  if (part === undefined) return null;
  const shape: PartitionShape = { ...part, order: order.field, direction: order.direction };
  if (range !== undefined) shape.bounds = rangeBounds(range);
  return shape;
}
