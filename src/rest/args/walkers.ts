/**
 * WordPress's two schema walkers, in WordPress's check order and wording: rest_validate_value_from_schema (the
 * authority where ajv, ajvValidators.ts, refuses a value or cannot judge a schema such as oneOf/anyOf) and
 * rest_sanitize_value_from_schema (coercion, applied only where WordPress's type test passes, so that nothing invalid
 * is turned into something valid). They call each other: an enum is compared with the coerced value, and coercion
 * picks its anyOf/oneOf branch by validating, so they share one module.
 */
import { isWpDateTime, isWpEmail, isWpHexColor, isWpIp, isWpUuid, sanitizeUrl } from './formats';
import { sanitizeTextField } from '../../text/textField';
import {
  allUnique,
  bestType,
  codePointLength,
  isArrayLike,
  isBooleanLike,
  isIntegerLike,
  isNumeric,
  isObjectLike,
  isPlainObject,
  isScalar,
  objectEntries,
  patternMatches,
  patternSchema,
  phpIntegerCast,
  phpString,
  toBoolean,
  toList,
  valuesEqual,
} from './phpTypes';
import { type JsonSchema, KNOWN_TYPES, SchemaIssue, type SchemaType } from './schema';

/** WordPress's rest_validate_value_from_schema: the first failure, or null when the value is valid. */
export function validateValue(value: unknown, schema: JsonSchema, param = ''): SchemaIssue | null {
  return explain(value, schema, param);
}

const typeIssue = (param: string, type: string) =>
  new SchemaIssue('rest_invalid_type', `${param} is not of type ${type}.`, { param });

export function explain(value: unknown, schema: JsonSchema, param: string): SchemaIssue | null {
  let type = schema.type;
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    if (!schema[keyword]) continue;
    const match = keyword === 'anyOf' ? findAnyMatch(value, schema, param) : findOneMatch(value, schema, param);
    if (match instanceof SchemaIssue) return match;
    if (type === undefined && match.type !== undefined) type = match.type;
  }

  let resolved: string | undefined;
  if (typeof type === 'string' || type === undefined) {
    resolved = type;
  } else {
    const best = bestType(value, type);
    if (!best) return typeIssue(param, type.join(','));
    resolved = best;
  }

  let issue: SchemaIssue | null = null;
  switch (resolved) {
    case 'null':
      if (value !== null) issue = typeIssue(param, 'null');
      break;
    case 'boolean':
      if (!isBooleanLike(value)) issue = typeIssue(param, 'boolean');
      break;
    case 'object':
      issue = explainObject(value, schema, param);
      break;
    case 'array':
      issue = explainArray(value, schema, param);
      break;
    case 'number':
      issue = explainNumber(value, schema, param, 'number');
      break;
    case 'integer':
      // The number checks (bounds included) come first: "1.5" with minimum 2 is out of bounds, not a non-integer.
      issue =
        explainNumber(value, schema, param, 'integer') ?? (isIntegerLike(value) ? null : typeIssue(param, 'integer'));
      break;
    case 'string':
      issue = explainString(value, schema, param);
      break;
  }
  if (issue) return issue;

  if (schema.enum && schema.enum.length > 0) {
    const enumIssue = explainEnum(
      value,
      resolved === schema.type ? schema : { ...schema, type: resolved as SchemaType },
      param,
    );
    if (enumIssue) return enumIssue;
  }

  if (schema.format !== undefined && (resolved === undefined || resolved === 'string' || !KNOWN_TYPES.has(resolved))) {
    const text = typeof value === 'string' ? value : isScalar(value) ? phpString(value) : null;
    switch (schema.format) {
      case 'hex-color':
        if (text === null || !isWpHexColor(text))
          return new SchemaIssue('rest_invalid_hex_color', 'Invalid hex color.');
        break;
      case 'date-time':
        if (text === null || !isWpDateTime(text)) return new SchemaIssue('rest_invalid_date', 'Invalid date.');
        break;
      case 'email':
        if (text === null || !isWpEmail(text)) return new SchemaIssue('rest_invalid_email', 'Invalid email address.');
        break;
      case 'ip':
        if (text === null || !isWpIp(text))
          return new SchemaIssue('rest_invalid_ip', `${param} is not a valid IP address.`);
        break;
      case 'uuid':
        if (typeof value !== 'string' || !isWpUuid(value))
          return new SchemaIssue('rest_invalid_uuid', `${param} is not a valid UUID.`);
        break;
    }
  }
  return null;
}

function explainObject(value: unknown, schema: JsonSchema, param: string): SchemaIssue | null {
  if (!isObjectLike(value)) return typeIssue(param, 'object');
  const entries = objectEntries(value);
  const has = (name: string) => entries.some(([key]) => key === name);

  if (Array.isArray(schema.required)) {
    for (const name of schema.required as string[]) {
      if (!has(name)) return new SchemaIssue('rest_property_required', `${name} is a required property of ${param}.`);
    }
  } else if (schema.properties) {
    for (const [name, property] of Object.entries(schema.properties)) {
      if (property?.required === true && !has(name)) {
        return new SchemaIssue('rest_property_required', `${name} is a required property of ${param}.`);
      }
    }
  }

  // Properties are checked in the value's order, not the schema's.
  for (const [key, v] of entries) {
    const property = schema.properties && Object.hasOwn(schema.properties, key) ? schema.properties[key] : undefined;
    const target = property ?? patternSchema(key, schema);
    if (target) {
      const issue = explain(v, target, `${param}[${key}]`);
      if (issue) return issue;
      continue;
    }
    if (schema.additionalProperties === false) {
      return new SchemaIssue('rest_additional_properties_forbidden', `${key} is not a valid property of Object.`);
    }
    if (isPlainObject(schema.additionalProperties)) {
      const issue = explain(v, schema.additionalProperties as JsonSchema, `${param}[${key}]`);
      if (issue) return issue;
    }
  }

  if (schema.minProperties != null && entries.length < schema.minProperties) {
    const n = schema.minProperties;
    return new SchemaIssue(
      'rest_too_few_properties',
      `${param} must contain at least ${formatCount(n)} ${n === 1 ? 'property' : 'properties'}.`,
    );
  }
  if (schema.maxProperties != null && entries.length > schema.maxProperties) {
    const n = schema.maxProperties;
    return new SchemaIssue(
      'rest_too_many_properties',
      `${param} must contain at most ${formatCount(n)} ${n === 1 ? 'property' : 'properties'}.`,
    );
  }
  return null;
}

function explainArray(value: unknown, schema: JsonSchema, param: string): SchemaIssue | null {
  if (!isArrayLike(value)) return typeIssue(param, 'array');
  const list = toList(value);
  if (schema.items) {
    for (let i = 0; i < list.length; i++) {
      const issue = explain(list[i], schema.items, `${param}[${i}]`);
      if (issue) return issue;
    }
  }
  if (schema.minItems != null && list.length < schema.minItems) {
    const n = schema.minItems;
    return new SchemaIssue(
      'rest_too_few_items',
      `${param} must contain at least ${formatCount(n)} ${n === 1 ? 'item' : 'items'}.`,
    );
  }
  if (schema.maxItems != null && list.length > schema.maxItems) {
    const n = schema.maxItems;
    return new SchemaIssue(
      'rest_too_many_items',
      `${param} must contain at most ${formatCount(n)} ${n === 1 ? 'item' : 'items'}.`,
    );
  }
  if (schema.uniqueItems && !allUnique(list))
    return new SchemaIssue('rest_duplicate_items', `${param} has duplicate items.`);
  return null;
}

function explainNumber(value: unknown, schema: JsonSchema, param: string, typeName: string): SchemaIssue | null {
  if (!isNumeric(value)) return typeIssue(param, typeName);
  const n = Number(value);
  if (schema.multipleOf != null && n % schema.multipleOf !== 0) {
    return new SchemaIssue('rest_invalid_multiple', `${param} must be a multiple of ${phpString(schema.multipleOf)}.`);
  }
  const { minimum: min, maximum: max } = schema;
  const exMin = Boolean(schema.exclusiveMinimum);
  const exMax = Boolean(schema.exclusiveMaximum);
  // The bounds print as PHP's %d prints them (truncated to an integer), and with no final period.
  const bound = (x: number) => String(Math.trunc(x) || 0);
  const outOfBounds = (message: string) => new SchemaIssue('rest_out_of_bounds', message);
  if (min != null && max == null) {
    if (exMin && n <= min) return outOfBounds(`${param} must be greater than ${bound(min)}`);
    if (!exMin && n < min) return outOfBounds(`${param} must be greater than or equal to ${bound(min)}`);
  }
  if (max != null && min == null) {
    if (exMax && n >= max) return outOfBounds(`${param} must be less than ${bound(max)}`);
    if (!exMax && n > max) return outOfBounds(`${param} must be less than or equal to ${bound(max)}`);
  }
  if (min != null && max != null) {
    const below = exMin ? n <= min : n < min;
    const above = exMax ? n >= max : n > max;
    if (below || above) {
      const lower = exMin ? 'exclusive' : 'inclusive';
      const upper = exMax ? 'exclusive' : 'inclusive';
      return outOfBounds(`${param} must be between ${bound(min)} (${lower}) and ${bound(max)} (${upper})`);
    }
  }
  return null;
}

function explainString(value: unknown, schema: JsonSchema, param: string): SchemaIssue | null {
  if (typeof value !== 'string') return typeIssue(param, 'string');
  if (schema.minLength != null || schema.maxLength != null) {
    const length = codePointLength(value);
    if (schema.minLength != null && length < schema.minLength) {
      const n = schema.minLength;
      return new SchemaIssue(
        'rest_too_short',
        `${param} must be at least ${formatCount(n)} ${n === 1 ? 'character' : 'characters'} long.`,
      );
    }
    if (schema.maxLength != null && length > schema.maxLength) {
      const n = schema.maxLength;
      return new SchemaIssue(
        'rest_too_long',
        `${param} must be at most ${formatCount(n)} ${n === 1 ? 'character' : 'characters'} long.`,
      );
    }
  }
  if (schema.pattern !== undefined && !patternMatches(schema.pattern, value)) {
    return new SchemaIssue('rest_invalid_pattern', `${param} does not match pattern ${schema.pattern}.`);
  }
  return null;
}

function explainEnum(value: unknown, schema: JsonSchema, param: string): SchemaIssue | null {
  // WordPress compares the coerced value ("5" matches 5 for an integer).
  const sanitized = coerce(value, schema, param, true);
  if (sanitized instanceof SchemaIssue) return sanitized;
  const options = schema.enum ?? [];
  if (options.some((option) => valuesEqual(sanitized, option))) return null;
  const shown = options.map((option) => (isScalar(option) ? phpString(option) : phpJsonEncode(option)));
  if (shown.length === 1) return new SchemaIssue('rest_not_in_enum', `${param} is not ${shown[0]}.`);
  return new SchemaIssue('rest_not_in_enum', `${param} is not one of ${listText(shown)}.`);
}

interface BranchError {
  issue: SchemaIssue;
  schema: JsonSchema;
  index: number;
}

/** A oneOf/anyOf branch without a type takes the parent's. */
function branchOf(branch: JsonSchema, parent: JsonSchema): JsonSchema {
  return branch.type === undefined && parent.type !== undefined ? { ...branch, type: parent.type } : branch;
}

export function findAnyMatch(value: unknown, schema: JsonSchema, param: string): JsonSchema | SchemaIssue {
  const errors: BranchError[] = [];
  for (const [index, raw] of (schema.anyOf ?? []).entries()) {
    const branch = branchOf(raw, schema);
    const issue = explain(value, branch, param);
    if (!issue) return branch;
    errors.push({ issue, schema: branch, index });
  }
  return combiningIssue(value, param, errors);
}

export function findOneMatch(
  value: unknown,
  schema: JsonSchema,
  param: string,
  stopAtFirst = false,
): JsonSchema | SchemaIssue {
  const matches: { schema: JsonSchema; index: number }[] = [];
  const errors: BranchError[] = [];
  for (const [index, raw] of (schema.oneOf ?? []).entries()) {
    const branch = branchOf(raw, schema);
    const issue = explain(value, branch, param);
    if (!issue) {
      if (stopAtFirst) return branch;
      matches.push({ schema: branch, index });
    } else {
      errors.push({ issue, schema: branch, index });
    }
  }
  if (matches.length === 0) return combiningIssue(value, param, errors);
  if (matches.length > 1) {
    const positions = matches.map((m) => m.index);
    const titles = matches.map((m) => m.schema.title).filter((t): t is string => t !== undefined);
    if (titles.length === matches.length) {
      return new SchemaIssue(
        'rest_one_of_multiple_matches',
        `${param} matches ${listText(titles)}, but should match only one.`,
        { positions },
      );
    }
    return new SchemaIssue('rest_one_of_multiple_matches', `${param} matches more than one of the expected formats.`, {
      positions,
    });
  }
  return matches[0]!.schema;
}

/** The first branch the value satisfies (anyOf, or oneOf read as WordPress reads it when filtering responses). */
export function firstMatchingBranch(value: unknown, schema: JsonSchema, keyword: 'anyOf' | 'oneOf'): JsonSchema | null {
  const found = keyword === 'anyOf' ? findAnyMatch(value, schema, '') : findOneMatch(value, schema, '', true);
  return found instanceof SchemaIssue ? null : found;
}

/** Picks the most telling branch failure, as WordPress does. */
function combiningIssue(value: unknown, param: string, errors: BranchError[]): SchemaIssue {
  if (errors.length === 1) return branchIssue(param, errors[0]!);
  // A type mismatch at this very level says little: prefer the branches that got further.
  const filtered = errors.filter(
    (e) => e.issue.code !== 'rest_invalid_type' || (e.issue.data?.param !== undefined && e.issue.data.param !== param),
  );
  if (filtered.length === 1) return branchIssue(param, filtered[0]!);
  if (filtered.length > 1 && filtered[0]!.schema.type === 'object') {
    // Among object branches, the one sharing most property names with the value.
    const keys = isObjectLike(value) ? objectEntries(value).map(([k]) => k) : [];
    let best: BranchError | null = null;
    let most = 0;
    for (const error of filtered) {
      if (!error.schema.properties) continue;
      const shared = Object.keys(error.schema.properties).filter((k) => keys.includes(k)).length;
      if (shared > most) {
        best = error;
        most = shared;
      }
    }
    if (best) return branchIssue(param, best);
  }
  const titles = errors.map((e) => e.schema.title).filter((t): t is string => t !== undefined);
  if (titles.length === errors.length)
    return new SchemaIssue('rest_no_matching_schema', `${param} is not a valid ${listText(titles)}.`);
  return new SchemaIssue('rest_no_matching_schema', `${param} does not match any of the expected formats.`);
}

function branchIssue(param: string, error: BranchError): SchemaIssue {
  const reason = error.issue.message;
  const data = { position: error.index };
  if (error.schema.title !== undefined) {
    return new SchemaIssue(
      'rest_no_matching_schema',
      `${param} is not a valid ${error.schema.title}. Reason: ${reason}`,
      data,
    );
  }
  return new SchemaIssue(
    'rest_no_matching_schema',
    `${param} does not match the expected format. Reason: ${reason}`,
    data,
  );
}

// Coercion

/** WordPress's rest_sanitize_value_from_schema for a value that validated: the coerced value, or a SchemaIssue. */
export function sanitizeValue(value: unknown, schema: JsonSchema, param = ''): unknown {
  return coerce(value, schema, param, true);
}

/**
 * `final` false: the lossless reading handed to ajv (no string sanitizing, no duplicate check, nothing that could
 * turn an invalid value into a valid one). `final` true: WordPress's sanitized output for a validated value.
 */
export function coerce(value: unknown, schema: JsonSchema, param: string, final: boolean): unknown {
  let type = schema.type;
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    if (!schema[keyword]) continue;
    const match = keyword === 'anyOf' ? findAnyMatch(value, schema, param) : findOneMatch(value, schema, param);
    if (match instanceof SchemaIssue) return match;
    if (type === undefined) type = match.type;
    value = coerce(value, match, param, final);
    if (value instanceof SchemaIssue) return value;
  }

  let resolved: string | undefined;
  if (typeof type === 'string' || type === undefined) {
    resolved = type;
  } else {
    const best = bestType(value, type);
    if (!best) return final ? null : value;
    resolved = best;
  }

  switch (resolved) {
    case 'array': {
      if (!isArrayLike(value)) return value;
      let list = toList(value);
      if (schema.items) {
        const items = schema.items;
        const out: unknown[] = [];
        for (let i = 0; i < list.length; i++) {
          const item = coerce(list[i], items, `${param}[${i}]`, final);
          if (item instanceof SchemaIssue) return item;
          out.push(item);
        }
        list = out;
      }
      if (final && schema.uniqueItems && !allUnique(list))
        return new SchemaIssue('rest_duplicate_items', `${param} has duplicate items.`);
      return list;
    }
    case 'object':
      return isObjectLike(value) ? coerceObject(value, schema, param, final) : value;
    case 'null':
      return final ? null : value;
    case 'integer':
      return isNumeric(value) ? phpIntegerCast(value as string | number) : value;
    case 'number':
      return isNumeric(value) ? Number(value) : value;
    case 'boolean':
      return isBooleanLike(value) ? toBoolean(value) : value;
  }

  if (
    final &&
    typeof value === 'string' &&
    schema.format !== undefined &&
    (resolved === undefined || resolved === 'string' || !KNOWN_TYPES.has(resolved))
  ) {
    switch (schema.format) {
      case 'hex-color':
        return isWpHexColor(value) ? value : '';
      case 'uri':
        return sanitizeUrl(value);
      case 'textarea-field':
        return sanitizeTextField(value, true);
      case 'date-time':
      case 'email':
      case 'ip':
      case 'uuid':
      case 'text-field':
        return sanitizeTextField(value, false);
    }
  }
  return value;
}

function coerceObject(value: unknown, schema: JsonSchema, param: string, final: boolean): unknown {
  // PHP cannot tell an empty list from an empty object; a non-empty list stays a list, as in WordPress.
  if (value === '' || (Array.isArray(value) && value.length === 0)) value = {};
  const isList = Array.isArray(value);
  const out: Record<string, unknown> | unknown[] = isList
    ? [...(value as unknown[])]
    : { ...(value as Record<string, unknown>) };
  const target = out as Record<string, unknown>;
  for (const key of Object.keys(out)) {
    const property = schema.properties && Object.hasOwn(schema.properties, key) ? schema.properties[key] : undefined;
    const sub =
      property ??
      patternSchema(key, schema) ??
      (isPlainObject(schema.additionalProperties) ? (schema.additionalProperties as JsonSchema) : undefined);
    if (sub) {
      const coerced = coerce(target[key], sub, `${param}[${key}]`, final);
      if (coerced instanceof SchemaIssue) return coerced;
      target[key] = coerced;
    } else if (final && schema.additionalProperties === false && !isList) {
      delete target[key];
    }
  }
  return out;
}

// Wording helpers

/** wp_json_encode's defaults: slashes and non-ASCII characters escaped. */
function phpJsonEncode(value: unknown): string {
  return (JSON.stringify(value) ?? 'null')
    .replace(/\//g, '\\/')
    .replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** "a", "a and b", "a, b, and c": WordPress's list wording. */
function listText(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? '';
  if (items.length === 2) return `${items[0]} and ${items[1]}`;
  return `${items.slice(0, -1).join(', ')}, and ${items[items.length - 1]}`;
}

/** number_format_i18n in English: rounded, with thousands separators. */
function formatCount(n: number): string {
  return Math.round(n)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
