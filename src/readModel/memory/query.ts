/**
 * Query execution: a plan's filters compiled into nodes (test, estimate, candidates, exact count), then the page
 * by rank in a partition, by a walk of an order index, or by sorting the matches, whichever is cheaper.
 */
import type { Direction, Filter, QueryPlan, Scalar } from '../../ports/readModel';
import { aboveLo, belowHi, compareScalars, distinctValues, partitionShape, rangeBounds, searchTerms } from '../plan';
import type { Bounds, PartitionShape } from '../plan';
import type { Collection } from './collection';
import { hasSetValue, hasSortKey, sortKeyOf } from './row';
import type { Row } from './row';
import type { RowSet } from './rowSets';
import { rowsMatchingText, textMatcher } from './textSearch';

interface Node {
  test(row: Row): boolean;
  /** Relative cost of `test`; conjunctions test cheap children first. */
  cost: number;
  /** Size of a candidate superset `candidates()` can list cheaply; undefined: only a scan would do. */
  estimate(): number | undefined;
  candidates(): Iterable<Row>;
  /** The exact number of matches when it is cheap to know. */
  count(): number | undefined;
  /** Sets whose intersection is exactly this node's matches, for counting conjunctions. */
  sets?: RowSet[];
  /** Set when this node is exactly a range on a sort key, so an order walk can start at its bound. */
  range?: { field: string; bounds: Bounds };
}

const TRUE: Node = {
  test: () => true,
  cost: 0,
  estimate: () => undefined,
  candidates: () => [],
  count: () => undefined,
};

const FALSE: Node = {
  test: () => false,
  cost: 0,
  estimate: () => 0,
  candidates: () => [],
  count: () => 0,
  sets: [],
};

function intersectionCount(sets: RowSet[]): number {
  if (sets.length === 0) return -1;
  const sorted = [...sets].sort((a, b) => a.size - b.size);
  const [smallest, ...rest] = sorted;
  if (rest.length === 0) return smallest!.size;
  let n = 0;
  for (const row of smallest!) if (rest.every((s) => s.has(row))) n++;
  return n;
}

function unionCount(sets: RowSet[]): number {
  // Count the largest set whole, then only the members of smaller sets not seen in a larger one.
  const sorted = [...sets].sort((a, b) => b.size - a.size);
  let n = 0;
  sorted.forEach((set, i) => {
    if (i === 0) n += set.size;
    else for (const row of set) if (!sorted.slice(0, i).some((s) => s.has(row))) n++;
  });
  return n;
}

function union(sets: Iterable<Iterable<Row>>): Set<Row> {
  const out = new Set<Row>();
  for (const set of sets) for (const row of set) out.add(row);
  return out;
}

export class Query {
  constructor(private readonly c: Collection) {}

  compile(filter: Filter): Node {
    switch (filter.kind) {
      case 'any':
        return this.anyOf(filter.field, distinctValues(filter.values));
      case 'all': {
        const values = distinctValues(filter.values);
        if (values.length === 0) return TRUE;
        if (filter.field === 'id') return values.length === 1 ? this.anyOf('id', values) : FALSE;
        const sets = values.map((v) => this.c.members(filter.field, v));
        if (sets.some((s) => s === undefined)) return FALSE;
        const present = sets as RowSet[];
        const field = filter.field;
        return {
          test: (row) => {
            return values.every((v) => hasSetValue(row, field, v));
          },
          cost: values.length,
          estimate: () => Math.min(...present.map((s) => s.size)),
          candidates: () => present.reduce((a, b) => (b.size < a.size ? b : a)),
          count: () => intersectionCount(present),
          sets: present,
        };
      }
      case 'none': {
        const values = distinctValues(filter.values);
        if (values.length === 0) return TRUE;
        const any = this.anyOf(filter.field, values);
        const size = this.c.rows.size;
        return {
          test: (row) => !any.test(row),
          cost: any.cost,
          estimate: () => undefined,
          candidates: () => [],
          count: () => {
            const n = any.count();
            return n === undefined ? undefined : size - n;
          },
        };
      }
      case 'range': {
        const field = filter.field;
        const index = this.c.order(field);
        if (index === undefined) return FALSE;
        const bounds = rangeBounds(filter);
        return {
          test: (row) => {
            const key = sortKeyOf(row, field);
            return key !== undefined && aboveLo(key, bounds) && belowHi(key, bounds);
          },
          cost: 2,
          estimate: () => index.count(bounds),
          candidates: () => {
            const rows: Row[] = [];
            index.each('asc', bounds, 0, (e) => {
              rows.push(e.row);
              return false;
            });
            return rows;
          },
          count: () => index.count(bounds),
          range: { field, bounds },
        };
      }
      case 'text': {
        const includes = searchTerms(filter.includes);
        const excludes = searchTerms(filter.excludes);
        if (includes.length === 0 && excludes.length === 0) return TRUE;
        if (includes.length > 0 && filter.fields.length === 0) return FALSE;
        const fields = [...filter.fields];
        const set = rowsMatchingText(this.c, fields, includes, excludes);
        return {
          test: (row) => set.has(row),
          cost: 1,
          estimate: () => set.size,
          candidates: () => set,
          count: () => set.size,
          sets: [set],
        };
      }
      case 'or':
        return this.or(filter.filters.map((f) => this.compile(f)));
      case 'and':
        return this.and(filter.filters.map((f) => this.compile(f)));
    }
  }

  private anyOf(field: string, values: Scalar[]): Node {
    if (values.length === 0) return FALSE;
    if (field === 'id') {
      const rows = this.c.rows;
      const wanted = new Set(values);
      const present = () => values.map((v) => rows.get(v)).filter((r): r is Row => r !== undefined);
      return {
        test: (row) => wanted.has(row.id),
        cost: 1,
        estimate: () => values.length,
        candidates: present,
        count: () => present().length,
      };
    }
    const sets = values.map((v) => this.c.members(field, v)).filter((s): s is RowSet => s !== undefined);
    if (sets.length === 0) return FALSE;
    if (sets.length === 1) {
      const set = sets[0]!;
      return {
        test: (row) => set.has(row),
        cost: 1,
        estimate: () => set.size,
        candidates: () => set,
        count: () => set.size,
        sets: [set],
      };
    }
    return {
      test: (row) => sets.some((s) => s.has(row)),
      cost: sets.length,
      estimate: () => sets.reduce((n, s) => n + s.size, 0),
      candidates: () => union(sets),
      count: () => unionCount(sets),
    };
  }

  private or(children: Node[]): Node {
    const live = children.filter((n) => n !== FALSE);
    if (live.length === 0) return FALSE;
    if (live.length === 1) return live[0]!;
    if (live.includes(TRUE)) return TRUE;
    live.sort((a, b) => a.cost - b.cost);
    return {
      test: (row) => live.some((n) => n.test(row)),
      cost: live.reduce((n, c) => n + c.cost, 0),
      estimate: () => {
        let total = 0;
        for (const n of live) {
          const e = n.estimate();
          if (e === undefined) return undefined;
          total += e;
        }
        return total;
      },
      candidates: () => union(live.map((n) => n.candidates())),
      count: () => undefined,
    };
  }

  and(children: Node[]): Node {
    const live = children.filter((n) => n !== TRUE);
    if (live.length === 0) return TRUE;
    if (live.length === 1) return live[0]!;
    if (live.includes(FALSE)) return FALSE;
    live.sort((a, b) => a.cost - b.cost);
    const best = (): Node | undefined => {
      let chosen: Node | undefined;
      let size = Infinity;
      for (const n of live) {
        const e = n.estimate();
        if (e !== undefined && e < size) [chosen, size] = [n, e];
      }
      return chosen;
    };
    const sets = live.every((n) => n.sets !== undefined) ? live.flatMap((n) => n.sets!) : undefined;
    const node: Node = {
      test: (row) => live.every((n) => n.test(row)),
      cost: live.reduce((n, c) => n + c.cost, 0),
      estimate: () => best()?.estimate(),
      candidates: () => best()!.candidates(),
      count: () => (sets === undefined ? undefined : intersectionCount(sets)),
    };
    if (sets !== undefined) node.sets = sets;
    return node;
  }

  /** Every matching row, from the smallest candidate superset (or a scan when there is none). */
  matches(node: Node): Row[] {
    const source = node.estimate() === undefined ? this.c.rows.values() : node.candidates();
    const out: Row[] = [];
    for (const row of source) if (node.test(row)) out.push(row);
    return out;
  }

  /** `rows` ordered by a sort key: walk its index when the rows are dense in it, otherwise sort them. */
  orderRows(rows: Row[], field: string, direction: Direction, offset: number, take: number): Row[] {
    const m = rows.length;
    if (m === 0 || take === 0 || offset >= m) return [];
    const index = this.c.order(field);
    const walkCost = index === undefined ? Infinity : (Math.min(offset + take, m) * index.size) / m;
    if (walkCost < m * Math.log2(m + 1)) {
      const wanted = new Set(rows);
      const out: Row[] = [];
      let seen = 0;
      index!.each(direction, undefined, 0, (e) => {
        if (!wanted.has(e.row)) return false;
        if (seen++ >= offset) out.push(e.row);
        return out.length >= take;
      });
      if (out.length < take && field !== 'id') {
        const sign = direction === 'asc' ? 1 : -1;
        const missing = rows.filter((r) => !hasSortKey(r, field)).sort((a, b) => sign * compareScalars(a.id, b.id));
        out.push(...missing.slice(Math.max(0, offset - seen), Math.max(0, offset - seen) + take - out.length));
      }
      return out;
    }
    const sign = direction === 'asc' ? 1 : -1;
    const sorted = [...rows].sort((a, b) => {
      const ka = sortKeyOf(a, field);
      const kb = sortKeyOf(b, field);
      if (ka === undefined || kb === undefined) {
        if (ka !== kb) return ka === undefined ? 1 : -1;
      } else {
        const c = compareScalars(ka, kb);
        if (c !== 0) return sign * c;
      }
      return sign * compareScalars(a.id, b.id);
    });
    return sorted.slice(offset, offset + take);
  }

  run(plan: QueryPlan): { rows: Row[]; total: number } {
    const take = plan.limit ?? Infinity;
    const { offset } = plan;
    const shape = partitionShape(plan);
    const paged = shape === null ? null : this.byPartition(shape, offset, take);
    if (paged !== null) return paged;
    const node = this.and(plan.filters.map((f) => this.compile(f)));
    const order = plan.order;
    if (order.kind === 'field') return this.byField(node, order.field, order.direction, offset, take);
    const matches = this.matches(node);
    const total = matches.length;
    const out: Row[] = [];
    // Each segment of the order gets its share of the page: its own offset and what is still to take.
    let consumed = 0;
    const segment = (rows: Row[], field: string, direction: Direction) => {
      if (out.length < take && consumed + rows.length > offset) {
        out.push(...this.orderRows(rows, field, direction, Math.max(0, offset - consumed), take - out.length));
      }
      consumed += rows.length;
    };
    if (order.kind === 'list') {
      const matched = new Set(matches);
      const placed = new Set<Row>();
      for (const value of distinctValues(order.values)) {
        if (out.length >= take) break;
        const listed =
          order.field === 'id' ? [this.c.rows.get(value)] : [...(this.c.members(order.field, value) ?? [])];
        const bucket = listed.filter((r): r is Row => r !== undefined && matched.has(r) && !placed.has(r));
        for (const r of bucket) placed.add(r);
        segment(bucket, 'id', 'asc');
      }
      if (out.length < take) segment(placed.size === 0 ? matches : matches.filter((r) => !placed.has(r)), 'id', 'asc');
      return { rows: out, total };
    }
    const phrase = order.phrase.toLowerCase();
    const hasPhrase = textMatcher(phrase);
    const terms = searchTerms(order.terms).map(textMatcher);
    const { title, excerpt, content } = order.columns;
    const ranks: Row[][] = [[], [], [], [], [], []];
    for (const row of matches) {
      const t = this.c.textOf(row, title);
      let rank = 5;
      if (phrase !== '' && hasPhrase(t)) rank = 0;
      else if (terms.length > 0 && terms.every((has) => has(t))) rank = 1;
      else if (terms.some((has) => has(t))) rank = 2;
      else if (phrase !== '' && hasPhrase(this.c.textOf(row, excerpt))) rank = 3;
      else if (phrase !== '' && hasPhrase(this.c.textOf(row, content))) rank = 4;
      ranks[rank]!.push(row);
    }
    for (const rows of ranks) segment(rows, order.tieBreak.field, order.tieBreak.direction);
    return { rows: out, total };
  }

  /**
   * A partition-shaped plan paged by rank in the partition's order: null when some row holding the value did not
   * declare the field a partition, or when the page reaches rows without the order key (the general path serves
   * those).
   */
  private byPartition(shape: PartitionShape, offset: number, take: number): { rows: Row[]; total: number } | null {
    const size = this.c.partitionSize(shape.field, shape.value);
    if (size === 0 || size !== (this.c.members(shape.field, shape.value)?.size ?? 0))
      return size === 0 && !this.c.members(shape.field, shape.value) ? { rows: [], total: 0 } : null;
    const index = this.c.partitionOrder(shape.field, shape.value, shape.order);
    const keyed = index.size;
    const total = shape.bounds === undefined ? size : index.count(shape.bounds);
    if (shape.bounds === undefined && keyed < size && offset + take > keyed) return null;
    const rows: Row[] = [];
    if (take === 0 || offset >= total) return { rows, total };
    index.each(shape.direction, shape.bounds, offset, (e) => {
      rows.push(e.row);
      return rows.length >= take;
    });
    return { rows, total };
  }

  private byField(node: Node, field: string, direction: Direction, offset: number, take: number) {
    const counted = node === TRUE ? this.c.rows.size : node.count();
    if (counted === undefined) {
      const matches = this.matches(node);
      return { rows: this.orderRows(matches, field, direction, offset, take), total: matches.length };
    }
    const total = counted;
    if (total === 0 || take === 0 || offset >= total) return { rows: [], total };
    const n = this.c.rows.size;
    const walkCost = (Math.min(offset + take, total) * n) / total;
    const estimate = node.estimate();
    if (estimate !== undefined && estimate * Math.log2(estimate + 2) < walkCost) {
      return { rows: this.orderRows(this.matches(node), field, direction, offset, take), total };
    }
    // Walk the order index from the requested end, testing rows; stop when the page is full or every match
    // has been seen. A range on the order key itself bounds the walk, and with no other filter every entry
    // inside the bounds matches, so the offset can be skipped without testing.
    const index = this.c.order(field);
    const bounds = node.range?.field === field ? node.range.bounds : undefined;
    const exact = node === TRUE || bounds !== undefined;
    const out: Row[] = [];
    let seen = exact ? Math.min(offset, index?.size ?? 0) : 0;
    index?.each(direction, bounds, exact ? offset : 0, (e) => {
      if (!exact && !node.test(e.row)) return false;
      if (seen++ >= offset) out.push(e.row);
      return out.length >= take || seen >= total;
    });
    if (out.length < take && seen < total && field !== 'id') {
      // Rows without the key come last, by id in the same direction.
      this.c.order('id')!.each(direction, undefined, 0, (e) => {
        if (hasSortKey(e.row, field) || !node.test(e.row)) return false;
        if (seen++ >= offset) out.push(e.row);
        return out.length >= take || seen >= total;
      });
    }
    return { rows: out, total };
  }
}
