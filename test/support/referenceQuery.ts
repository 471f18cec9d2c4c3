/**
 * The executable definition of a QueryPlan: a deliberately naive evaluator that tests every document against
 * every filter and sorts everything. Adapters are compared with it; it must stay obviously correct, not fast.
 */
import type { Doc, DocId, Filter, IndexEntry, Order, QueryPlan, QueryResult, Scalar } from '../../src/ports/readModel';

export interface RefRow {
  doc: Doc;
  index?: IndexEntry;
}

/** The one total order of scalars: numbers (numerically) before strings (by UTF-16 code units). */
export function compareScalar(a: Scalar, b: Scalar): number {
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'number') return -1;
  if (typeof b === 'number') return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A declared key's value; undefined and null both mean the key is absent. */
function own<T>(record: Record<string, T> | undefined, key: string): T | undefined {
  if (record === undefined || !Object.hasOwn(record, key)) return undefined;
  return record[key] ?? undefined;
}

function setValues(row: RefRow, field: string): Scalar[] {
  if (field === 'id') return [row.doc.id];
  const value = own(row.index?.sets, field);
  if (value === undefined) return [];
  return Array.isArray(value) ? [...(value as Scalar[])] : [value as Scalar];
}

function sortKey(row: RefRow, field: string): Scalar | undefined {
  if (field === 'id') return row.doc.id;
  return own(row.index?.sort, field);
}

function column(row: RefRow, name: string): string {
  return (own(row.index?.text, name) ?? '').toLowerCase();
}

function has(row: RefRow, field: string, value: Scalar): boolean {
  return setValues(row, field).some((v) => v === value);
}

function matches(row: RefRow, filter: Filter): boolean {
  switch (filter.kind) {
    case 'any':
      return filter.values.some((v) => has(row, filter.field, v));
    case 'all':
      return filter.values.every((v) => has(row, filter.field, v));
    case 'none':
      return !filter.values.some((v) => has(row, filter.field, v));
    case 'range': {
      const key = sortKey(row, filter.field);
      if (key === undefined) return false;
      if (filter.gt !== undefined && !(compareScalar(key, filter.gt) > 0)) return false;
      if (filter.gte !== undefined && !(compareScalar(key, filter.gte) >= 0)) return false;
      if (filter.lt !== undefined && !(compareScalar(key, filter.lt) < 0)) return false;
      if (filter.lte !== undefined && !(compareScalar(key, filter.lte) <= 0)) return false;
      return true;
    }
    case 'text': {
      const texts = filter.fields.map((f) => column(row, f));
      const includes = filter.includes.filter((t) => t !== '').map((t) => t.toLowerCase());
      const excludes = filter.excludes.filter((t) => t !== '').map((t) => t.toLowerCase());
      return (
        includes.every((t) => texts.some((x) => x.includes(t))) &&
        !excludes.some((t) => texts.some((x) => x.includes(t)))
      );
    }
    case 'or':
      return filter.filters.some((f) => matches(row, f));
    case 'and':
      return filter.filters.every((f) => matches(row, f));
  }
}

/** Field order: rows with the key by (key, id) in the direction, then rows without it by id in the direction. */
function compareByField(a: RefRow, b: RefRow, field: string, direction: 'asc' | 'desc'): number {
  const sign = direction === 'asc' ? 1 : -1;
  const ka = sortKey(a, field);
  const kb = sortKey(b, field);
  if (ka === undefined && kb !== undefined) return 1;
  if (ka !== undefined && kb === undefined) return -1;
  if (ka !== undefined && kb !== undefined) {
    const c = compareScalar(ka, kb);
    if (c !== 0) return sign * c;
  }
  return sign * compareScalar(a.doc.id, b.doc.id);
}

function relevanceRank(row: RefRow, order: Extract<Order, { kind: 'relevance' }>): number {
  const phrase = order.phrase.toLowerCase();
  const terms = order.terms.filter((t) => t !== '').map((t) => t.toLowerCase());
  const title = column(row, order.columns.title);
  if (phrase !== '' && title.includes(phrase)) return 1;
  if (terms.length > 0 && terms.every((t) => title.includes(t))) return 2;
  if (terms.some((t) => title.includes(t))) return 3;
  if (phrase !== '' && column(row, order.columns.excerpt).includes(phrase)) return 4;
  if (phrase !== '' && column(row, order.columns.content).includes(phrase)) return 5;
  return 6;
}

function listPosition(row: RefRow, field: string, values: readonly Scalar[]): number {
  const index = values.findIndex((v) => has(row, field, v));
  return index === -1 ? Infinity : index;
}

function compareRows(a: RefRow, b: RefRow, order: Order): number {
  switch (order.kind) {
    case 'field':
      return compareByField(a, b, order.field, order.direction);
    case 'list': {
      const pa = listPosition(a, order.field, order.values);
      const pb = listPosition(b, order.field, order.values);
      if (pa !== pb) return pa < pb ? -1 : 1;
      return compareScalar(a.doc.id, b.doc.id);
    }
    case 'relevance': {
      const ra = relevanceRank(a, order);
      const rb = relevanceRank(b, order);
      if (ra !== rb) return ra - rb;
      return compareByField(a, b, order.tieBreak.field, order.tieBreak.direction);
    }
  }
}

export function referenceQuery(rows: readonly RefRow[], plan: QueryPlan): QueryResult {
  const hits = rows.filter((row) => plan.filters.every((f) => matches(row, f)));
  hits.sort((a, b) => compareRows(a, b, plan.order));
  const end = plan.limit === null ? undefined : plan.offset + plan.limit;
  return { items: hits.slice(plan.offset, end).map((r) => r.doc), total: hits.length };
}

/** Convenience for expectations: the ids of a result, in order. */
export function idsOf(result: QueryResult): DocId[] {
  return result.items.map((d) => d.id);
}
