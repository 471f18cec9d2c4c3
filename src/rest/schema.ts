/**
 * The one schema per resource, and what is derived from it: write arguments, context filtering of responses
 * and `_fields`. The schema is written as WordPress writes item schemas (draft-04 style, with `context` and
 * `readonly` on each property), and is also what OPTIONS shows.
 */
import { isArrayLike } from './args/phpTypes';
import { ALLOWED_KEYWORDS } from './args/schema';
import { firstMatchingBranch } from './args/walkers';
import type { ArgSchema, Context, JsonSchema } from './args/schema';
import { phpTrim } from '../text/phpTrim';

export type { ArgSchema, Context, JsonSchema } from './args/schema';

export interface ResourceSchema {
  $schema?: string;
  title: string;
  type: 'object';
  properties: Record<string, JsonSchema>;
  /** Hyper-schema links (WordPress describes the `action-*` relations of an item here). */
  links?: readonly Record<string, unknown>[];
}

/** The schema as OPTIONS shows it: without the `arg_options` of its properties, which only concern validation. */
export function publicSchema(schema: ResourceSchema, links?: ResourceSchema['links']): ResourceSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const [name, property] of Object.entries(schema.properties)) {
    const { arg_options: _validationOnly, ...shown } = property;
    properties[name] = shown;
  }
  return { ...schema, properties, ...(links ? { links } : {}) };
}

const CONTEXT_DESCRIPTION = 'Scope under which the request is made; determines fields present in response.';

/**
 * The standard `context` argument. With a schema, its enum is the contexts the schema's properties use (as
 * WordPress derives it); without, view / embed / edit.
 */
export function contextParam(defaultContext: Context = 'view', schema?: ResourceSchema): ArgSchema {
  const contexts = schema
    ? [...new Set(Object.values(schema.properties).flatMap((p) => p.context ?? []))]
    : ['view', 'embed', 'edit'];
  // WordPress lists them in reverse alphabetical order: view, embed, edit.
  contexts.sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
  const param: ArgSchema = { description: CONTEXT_DESCRIPTION, type: 'string' };
  if (contexts.length > 0) param.enum = contexts;
  param.default = defaultContext;
  return param;
}

/**
 * Write arguments from a resource schema, as WordPress derives them: every property that is not `readonly`
 * becomes an arg carrying its schema keywords, which is also what the index shows. `default` and `required`
 * only apply when creating (an update changes only what is sent). A property's `arg_options` say how input is
 * checked when that is not by the property's schema (WordPress checks a title, given as a string or `{raw}`,
 * with its own callback): they become the arg's `accepts`, used for validation and never shown. A readonly
 * field in a body is then simply an unregistered param: ignored, no error.
 */
export function argsFromSchema(schema: ResourceSchema, kind: 'create' | 'update'): Record<string, ArgSchema> {
  const args: Record<string, ArgSchema> = {};
  for (const [name, property] of Object.entries(schema.properties)) {
    if (property.readonly) continue;
    const arg: Record<string, unknown> = {};
    if (kind === 'create' && property.default !== undefined && property.default !== null)
      arg.default = property.default;
    if (kind === 'create' && isTruthy(property.required)) arg.required = true;
    for (const keyword of ALLOWED_KEYWORDS) {
      if (keyword === 'default') continue;
      const value = (property as Record<string, unknown>)[keyword];
      if (value !== undefined) arg[keyword] = value;
    }
    if (property.arg_options) arg.accepts = property.arg_options;
    args[name] = arg as ArgSchema;
  }
  return args;
}

/**
 * Keeps only the properties whose `context` includes the requested one, recursing into nested objects and
 * arrays (e.g. `title.raw` is edit-only). Keys the schema does not describe, such as `_links`, are left alone,
 * as are properties without a `context`. Returns a copy.
 */
export function filterByContext<T>(schema: ResourceSchema | JsonSchema, data: T, context: Context): T {
  return filterValue(data, schema as JsonSchema, context) as T;
}

function filterValue(data: unknown, schema: JsonSchema, context: Context): unknown {
  let type = schema.type;
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    if (!schema[keyword]) continue;
    const branch = firstMatchingBranch(data, schema, keyword);
    if (!branch) continue;
    if (type === undefined) type = branch.type;
    data = filterValue(data, branch, context);
  }
  if (data === null || typeof data !== 'object') return data;
  if (type === undefined) {
    if (!schema.properties) return data;
    type = 'object';
  }

  const types: readonly string[] = typeof type === 'string' ? [type] : type;
  let asArray = types.includes('array');
  let asObject = types.includes('object');
  if (asArray && asObject) {
    if (isArrayLike(data)) asObject = false;
    else asArray = false;
  }
  const additional = asObject && isSchema(schema.additionalProperties) ? schema.additionalProperties : undefined;

  const isList = Array.isArray(data);
  const out: Record<string, unknown> | unknown[] = isList
    ? [...(data as unknown[])]
    : { ...(data as Record<string, unknown>) };
  const target = out as Record<string, unknown>;
  for (const key of Object.keys(out)) {
    let check: JsonSchema | undefined;
    if (asArray) check = schema.items;
    else if (asObject) {
      check = schema.properties && Object.hasOwn(schema.properties, key) ? schema.properties[key] : undefined;
      check ??= matchingPattern(key, schema) ?? additional;
    }
    if (!check || check.context === undefined) continue;
    if (!check.context.includes(context)) {
      // Items share one schema: if one is out of context, all are.
      if (asArray) return [];
      if (!isList) delete target[key];
    } else if (target[key] !== null && typeof target[key] === 'object') {
      target[key] = filterValue(target[key], check, context);
    }
  }
  return out;
}

function isSchema(value: unknown): value is JsonSchema {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function matchingPattern(key: string, schema: JsonSchema): JsonSchema | undefined {
  for (const [pattern, sub] of Object.entries(schema.patternProperties ?? {})) {
    try {
      if (new RegExp(pattern, 'u').test(key)) return sub;
    } catch {
      // A pattern JavaScript cannot compile matches nothing, as a failing preg_match.
    }
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// _fields

type FieldTree = { [key: string]: true | FieldTree };

/**
 * WordPress's `_fields`: keeps only the listed top-level keys and nested `a.b` paths, on an item or on each item
 * of a list. `_links` and `_embedded` stay (whole) only when `_links` or `_embedded` is requested, since
 * WordPress only attaches links then. `fields` may be the raw parameter (a comma/space separated string).
 */
export function applyFields<T>(body: T, fields: readonly string[] | string): T {
  const list = parseFields(fields);
  if (list.length === 0) return body;
  const tree = fieldTree(list);
  const keepLinks = isFieldIncluded('_links', list) || isFieldIncluded('_embedded', list);
  const pickItem = (item: unknown): unknown => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) return item;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(item)) {
      if (key === '_links' || key === '_embedded') {
        if (keepLinks) out[key] = value;
      } else if (Object.hasOwn(tree, key)) {
        out[key] = pick(value, tree[key]!);
      }
    }
    return out;
  };
  return (Array.isArray(body) ? body.map(pickItem) : pickItem(body)) as T;
}

/**
 * WordPress's rest_is_field_included: whether `field` is requested itself, as the parent of a requested
 * `field.child`, or as the child of a requested parent.
 */
export function isFieldIncluded(field: string, fields: readonly string[]): boolean {
  return fields.some((f) => f === field || f.startsWith(`${field}.`) || field.startsWith(`${f}.`));
}

function parseFields(fields: readonly string[] | string): string[] {
  const parts = typeof fields === 'string' ? fields.split(/[\s,]+/) : fields.map(String);
  return parts.map((f) => phpTrim(f)).filter((f) => f !== '');
}

function fieldTree(fields: readonly string[]): FieldTree {
  const tree: FieldTree = Object.create(null);
  for (const field of fields) {
    const parts = field.split('.');
    let ref = tree;
    while (parts.length > 1) {
      const next = parts.shift()!;
      // WordPress stops reading the list altogether here ("a" then "a.b": everything after is ignored).
      if (ref[next] === true) return tree;
      if (ref[next] === undefined) ref[next] = Object.create(null) as FieldTree;
      ref = ref[next] as FieldTree;
    }
    ref[parts[0]!] = true;
  }
  return tree;
}

function pick(value: unknown, spec: true | FieldTree): unknown {
  if (spec === true || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const kept = value.map((v, i) => [String(i), v] as const).filter(([k]) => Object.hasOwn(spec, k));
    const picked = kept.map(([k, v]) => [k, pick(v, spec[k]!)] as const);
    // PHP keeps the surviving keys: still a list only if they run 0, 1, 2…
    return picked.every(([k], i) => k === String(i)) ? picked.map(([, v]) => v) : Object.fromEntries(picked);
  }
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) if (Object.hasOwn(spec, key)) out[key] = pick(v, spec[key]!);
  return out;
}

function isTruthy(value: unknown): boolean {
  return Array.isArray(value) ? value.length > 0 : Boolean(value);
}
