/**
 * `filterByContext` (src/rest/schema.ts) compiled for one schema and one context: what to keep, drop or filter
 * further under each property is decided once, not looked up in the schema for every key of every item, and
 * the result is built key by key, or for an object of many keys as a copy of a shape made for its keys (see
 * ObjectPlans; the generic walk copies an object and deletes from it, which leaves it in V8's slow dictionary
 * mode, slower to serialise and to freeze). The result is the same value, key for key and
 * in the same order; schema constructs this compiler does not handle (anyOf, oneOf, patternProperties, a schema
 * for additionalProperties, a type that may be an array or an object) are filtered by the generic walk.
 */
import type { Context, JsonSchema } from '../../rest/schema';
import { filterByContext } from '../../rest/schema';

type Apply = (value: object) => unknown;

/** What happens to one property of an object: kept as it is, dropped, or its object value filtered further. */
type Rule = 'keep' | 'drop' | Apply;

export class ContextFilter {
  private readonly topRules: ReadonlyMap<string, Rule>;
  /** Filters an item (the value the schema describes) as filterByContext would. */
  readonly apply: (item: object) => unknown;

  constructor(schema: JsonSchema, context: Context) {
    const compiled = compile(schema, context);
    this.apply = compiled.apply;
    this.topRules = compiled.rules;
  }

  /** Whether a top-level property of the item is always dropped in this context (so it need not be worked out). */
  drops(property: string): boolean {
    return this.topRules.get(property) === 'drop';
  }
}

const NO_RULES: ReadonlyMap<string, Rule> = new Map();

function compile(schema: JsonSchema, context: Context): { apply: Apply; rules: ReadonlyMap<string, Rule> } {
  const generic: Apply = (value) => filterByContext(schema, value, context);
  const additional = schema.additionalProperties;
  if (
    schema.anyOf ||
    schema.oneOf ||
    schema.patternProperties ||
    (additional !== null && typeof additional === 'object' && !Array.isArray(additional))
  ) {
    return { apply: generic, rules: NO_RULES };
  }
  let type = schema.type;
  if (type === undefined) {
    // The generic walk hands such a value back as it is.
    if (!schema.properties) return { apply: (value) => value, rules: NO_RULES };
    type = 'object';
  }
  const types: readonly string[] = typeof type === 'string' ? [type] : type;
  const asArray = types.includes('array');
  const asObject = types.includes('object');
  if (asArray && asObject) return { apply: generic, rules: NO_RULES };
  if (asObject) {
    const rules = new Map<string, Rule>();
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      if (property.context === undefined) rules.set(name, 'keep');
      else if (!property.context.includes(context)) rules.set(name, 'drop');
      else rules.set(name, compile(property, context).apply);
    }
    const plans = new ObjectPlans(rules);
    return {
      apply: (value) => (Array.isArray(value) ? generic(value) : plans.filter(value as Record<string, unknown>)),
      rules,
    };
  }
  if (asArray) {
    const items = schema.items;
    if (!items || items.context === undefined)
      return { apply: (value) => (Array.isArray(value) ? value.slice() : generic(value)), rules: NO_RULES };
    // Items share one schema: if one is out of context, all are.
    if (!items.context.includes(context))
      return { apply: (value) => (Array.isArray(value) ? [] : generic(value)), rules: NO_RULES };
    const item = compile(items, context).apply;
    return { apply: (value) => (Array.isArray(value) ? filterArray(value, item) : generic(value)), rules: NO_RULES };
  }
  // Neither an object nor an array schema: the generic walk copies the value and keeps all of it.
  return { apply: (value) => (Array.isArray(value) ? value.slice() : { ...value }), rules: NO_RULES };
}

/** What filtering an object with one sequence of keys takes: the keys kept, their rules, and the result's shape. */
interface ObjectPlan {
  /** The object's own keys, in order, as Object.keys gives them. */
  readonly keys: readonly string[];
  readonly kept: readonly string[];
  readonly keptRules: readonly Rule[];
  /** An object with the kept keys in order (values meaningless), in V8's fast mode: results are copies of it. */
  readonly shape: Record<string, unknown>;
}

/** Objects with more keys than this are filtered by a plan (see ObjectPlans); smaller ones key by key. */
const PLANNED_KEYS = 8;

/**
 * The objects of one schema node are filtered by a plan made for their sequence of keys (the items of one type
 * and context all have the same one). The result starts as a copy of the plan's shape, whose keys are then
 * assigned: built key by key, an object of more than 16 or so properties turns into V8's dictionary mode, which
 * made the filtering slower and JSON.stringify of the item take its slow path. The last plan is kept; a different
 * sequence of keys makes a new one.
 */
class ObjectPlans {
  private last: ObjectPlan | null = null;

  constructor(private readonly rules: ReadonlyMap<string, Rule>) {}

  filter(value: Record<string, unknown>): Record<string, unknown> {
    const keys = Object.keys(value);
    if (keys.length <= PLANNED_KEYS) return filterObject(value, this.rules, keys);
    let plan = this.last;
    if (plan === null || !sameKeys(plan.keys, keys)) {
      const made = makePlan(keys, this.rules);
      if (made === null) return filterObject(value, this.rules, keys);
      this.last = plan = made;
    }
    const out: Record<string, unknown> = { ...plan.shape };
    const { kept, keptRules } = plan;
    for (let i = 0; i < kept.length; i++) {
      const key = kept[i]!;
      const rule = keptRules[i]!;
      const inner = value[key];
      out[key] = rule === 'keep' || inner === null || typeof inner !== 'object' ? inner : (rule as Apply)(inner);
    }
    return out;
  }
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Null for an object with an own "__proto__" key: left to filterObject, which defines it as a plain property. */
function makePlan(keys: readonly string[], rules: ReadonlyMap<string, Rule>): ObjectPlan | null {
  const kept: string[] = [];
  const keptRules: Rule[] = [];
  for (const key of keys) {
    if (key === '__proto__') return null;
    const rule = rules.get(key);
    if (rule === 'drop') continue;
    kept.push(key);
    keptRules.push(rule ?? 'keep');
  }
  // JSON.parse builds its objects in fast mode (up to about a thousand keys), unlike stores key by key.
  const shape = JSON.parse(JSON.stringify(Object.fromEntries(kept.map((key) => [key, 0])))) as Record<string, unknown>;
  return { keys, kept, keptRules, shape };
}

function filterObject(
  value: Record<string, unknown>,
  rules: ReadonlyMap<string, Rule>,
  keys: readonly string[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const rule = rules.get(key);
    if (rule === 'drop') continue;
    const inner = value[key];
    const kept =
      rule === undefined || rule === 'keep' || inner === null || typeof inner !== 'object' ? inner : rule(inner);
    // An own "__proto__" key is a property like any other in a copy; assigning it would set the prototype.
    if (key === '__proto__')
      Object.defineProperty(out, key, { value: kept, enumerable: true, writable: true, configurable: true });
    else out[key] = kept;
  }
  return out;
}

function filterArray(value: readonly unknown[], item: Apply): unknown[] {
  const out = value.slice();
  for (let i = 0; i < out.length; i++) {
    const inner = out[i];
    if (inner !== null && typeof inner === 'object') out[i] = item(inner);
  }
  return out;
}
