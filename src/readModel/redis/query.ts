/**
 * Query plans compiled to QUERY's arguments (lua/query.lua): the filters to a token program with a cost per node (the
 * script tests the cheapest first), the order, and the partition hint the script tries first.
 */
import type { Filter, Order, QueryPlan, Scalar } from '../../ports/readModel';
import { distinctValues, partitionShape, rangeBounds, searchTerms } from '../plan';
import { name, ord, partitionSuffix, setSuffix } from './keys';
import type { Token } from './scripts';
import { needle } from './text';

interface Compiled {
  /** 'T' and 'F' are the constant nodes, simplified away where they can be. */
  kind: string;
  cost: number;
  tokens: Token[];
  /** An 'and' node's children, so a conjunction inside a conjunction is flattened into one. */
  kids?: Compiled[];
}

const TRUE: Compiled = { kind: 'T', cost: 0, tokens: ['T'] };
const FALSE: Compiled = { kind: 'F', cost: 0, tokens: ['F'] };

function node(kind: string, cost: number, tokens: Token[]): Compiled {
  return { kind, cost, tokens: [kind, ...tokens] };
}

function compileIds(kind: 'idin' | 'idnot', values: Scalar[]): Compiled {
  return node(kind, 0, [String(values.length), ...values.map(ord)]);
}

function compileSets(kind: 'any' | 'all' | 'none', field: string, values: Scalar[]): Compiled {
  return node(kind, 1, [String(values.length), ...values.map((v) => setSuffix(field, v))]);
}

function compileGroup(kind: 'and' | 'or', children: Compiled[]): Compiled {
  const [unit, zero] = kind === 'and' ? [TRUE, FALSE] : [FALSE, TRUE];
  // and(a, and(b, c)) is and(a, b, c): its set filters then intersect in one SINTER (gen) or SINTERCARD (fastCount).
  const flat = kind === 'and' ? children.flatMap((c) => c.kids ?? [c]) : children;
  const live = flat.filter((c) => c !== unit);
  if (live.includes(zero)) return zero;
  if (live.length === 0) return unit;
  if (live.length === 1) return live[0]!;
  live.sort((a, b) => a.cost - b.cost);
  const group = node(
    kind,
    live.reduce((n, c) => n + c.cost, 0),
    [String(live.length), ...live.flatMap((c) => c.tokens)],
  );
  if (kind === 'and') group.kids = live;
  return group;
}

function compileFilter(filter: Filter): Compiled {
  switch (filter.kind) {
    case 'any': {
      const values = distinctValues(filter.values);
      if (values.length === 0) return FALSE;
      return filter.field === 'id' ? compileIds('idin', values) : compileSets('any', filter.field, values);
    }
    case 'all': {
      const values = distinctValues(filter.values);
      if (values.length === 0) return TRUE;
      if (filter.field === 'id') return values.length === 1 ? compileIds('idin', values) : FALSE;
      return compileSets('all', filter.field, values);
    }
    case 'none': {
      const values = distinctValues(filter.values);
      if (values.length === 0) return TRUE;
      return filter.field === 'id' ? compileIds('idnot', values) : compileSets('none', filter.field, values);
    }
    case 'range': {
      const b = rangeBounds(filter);
      const bounds = [
        b.lo === undefined ? '' : ord(b.lo),
        b.loIncl ? '1' : '0',
        b.hi === undefined ? '' : ord(b.hi),
        b.hiIncl ? '1' : '0',
      ];
      return filter.field === 'id' ? node('idrange', 2, bounds) : node('range', 2, [name(filter.field), ...bounds]);
    }
    case 'text': {
      const includes = searchTerms(filter.includes);
      const excludes = searchTerms(filter.excludes);
      const fields = [...new Set(filter.fields)];
      if (includes.length > 0 && fields.length === 0) return FALSE;
      if (includes.length === 0 && (excludes.length === 0 || fields.length === 0)) return TRUE;
      const tokens: Token[] = [String(fields.length), ...fields.map(name), String(includes.length)];
      for (const term of includes) tokens.push(...needle(term));
      tokens.push(String(excludes.length));
      for (const term of excludes) tokens.push(...needle(term));
      return node('text', 5, tokens);
    }
    case 'or':
    case 'and':
      return compileGroup(filter.kind, filter.filters.map(compileFilter));
  }
}

export function compileOrder(order: Order): Token[] {
  switch (order.kind) {
    case 'field':
      return [
        'field',
        order.field === 'id' ? '1' : '0',
        order.field === 'id' ? '' : name(order.field),
        order.direction,
      ];
    case 'list': {
      const values = distinctValues(order.values);
      const isId = order.field === 'id';
      return [
        'list',
        isId ? '1' : '0',
        String(values.length),
        ...values.map((v) => (isId ? ord(v) : setSuffix(order.field, v))),
      ];
    }
    case 'relevance': {
      const terms = searchTerms(order.terms);
      const tieBreak = order.tieBreak;
      return [
        'relevance',
        ...needle(order.phrase.toLowerCase()),
        String(terms.length),
        ...terms.flatMap(needle),
        name(order.columns.title),
        name(order.columns.excerpt),
        name(order.columns.content),
        tieBreak.field === 'id' ? '1' : '0',
        tieBreak.field === 'id' ? '' : name(tieBreak.field),
        tieBreak.direction,
      ];
    }
  }
}

/** The plan's filters, as one conjunction. */
export function compileFilters(plan: QueryPlan): Token[] {
  return compileGroup(
    'and',
    plan.filters.map((f) => compileFilter(f)),
  ).tokens;
}

/** The partition hint QUERY tries first (lua/partitionPage.lua), then its count; just '0' without one. */
export function partitionHint(plan: QueryPlan): Token[] {
  const shape = partitionShape(plan);
  if (shape === null) return ['0'];
  const b = shape.bounds;
  const hint: Token[] = [
    setSuffix(shape.field, shape.value),
    partitionSuffix(shape.field, 'id'),
    partitionSuffix(shape.field, shape.order),
    ord(shape.value),
    shape.order === 'id' ? '1' : '0',
    shape.direction,
    b?.lo === undefined ? '' : ord(b.lo),
    b?.loIncl ? '1' : '0',
    b?.hi === undefined ? '' : ord(b.hi),
    b?.hiIncl ? '1' : '0',
  ];
  return [...hint, String(hint.length)];
}
