/**
 * Coercion: WordPress's rest_sanitize_value_from_schema, applied only where WordPress's type test passes, so that
 * nothing invalid is turned into something valid.
 */
import { isWpHexColor, sanitizeTextField, sanitizeUrl } from './formats';
import {
  allUnique,
  bestType,
  isArrayLike,
  isBooleanLike,
  isNumeric,
  isObjectLike,
  isPlainObject,
  patternSchema,
  phpIntegerCast,
  toBoolean,
  toList,
} from './phpTypes';
import { type JsonSchema, KNOWN_TYPES, SchemaIssue } from './schema';
import { findAnyMatch, findOneMatch } from './validate';

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
