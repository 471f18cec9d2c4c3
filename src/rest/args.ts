/**
 * Route arguments: JSON schemas (as WordPress writes them) checked and coerced the way WordPress 6.1 does it,
 * with WordPress's error codes, wording and order.
 *
 * How a value is checked:
 *  1. It is coerced the way WordPress reads loosely typed input ("5" for an integer, "true" for a boolean, "1,2"
 *     for an array, "" for an object), but only where WordPress's own type test would accept it, so that
 *     nothing invalid is turned into something valid.
 *  2. ajv, compiled once per arg schema, checks the coerced value. This is the fast path for valid input.
 *  3. When ajv refuses (or the schema has oneOf/anyOf, whose PHP array/object ambiguity ajv cannot model), a
 *     walker that follows WordPress's own check order finds the first failure and words it. The walker is the
 *     authority: where ajv is stricter than WordPress, the walker's acceptance wins.
 */
import Ajv from 'ajv';
import type { ValidateFunction } from 'ajv';
import { isIPv6 } from 'node:net';
import { RestError, restError } from './errors';

// ---------------------------------------------------------------------------------------------------------------
// Types

export type Context = 'view' | 'edit' | 'embed';
export type SchemaType = 'array' | 'object' | 'string' | 'number' | 'integer' | 'boolean' | 'null';

/** The JSON-schema dialect WordPress uses (draft-04-ish), with its `context` / `readonly` / `arg_options` vocabulary. */
export interface JsonSchema {
  title?: string;
  description?: string;
  default?: unknown;
  type?: SchemaType | readonly SchemaType[];
  format?: string;
  enum?: readonly unknown[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  patternProperties?: Record<string, JsonSchema>;
  minProperties?: number;
  maxProperties?: number;
  minimum?: number;
  maximum?: number;
  /** Draft-04 booleans: they make `minimum` / `maximum` exclusive. */
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  anyOf?: readonly JsonSchema[];
  oneOf?: readonly JsonSchema[];
  /** `true` on a property (draft-03 style) or a list of property names on an object (draft-04 style). */
  required?: boolean | readonly string[];
  /** Contexts in which a response shows this property. */
  context?: readonly Context[];
  /** Read-only properties are not write arguments (a client sending one is ignored). */
  readonly?: boolean;
  /** How the property's write argument checks input, when not by the property's schema (see argsFromSchema). */
  arg_options?: JsonSchema;
}

export interface ArgContext<R = unknown> {
  /** The argument's name. */
  key: string;
  /** Every merged input parameter, as received. */
  input: Record<string, unknown>;
  /** Whatever the caller passed as `options.request`. */
  request: R | undefined;
}

/** One route argument: a schema, plus whether it is required, its default and an optional extra rule. */
export interface ArgSchema<R = unknown> extends JsonSchema {
  /**
   * A rule the schema cannot express, run on the coerced value once the schema accepts it (defaults included).
   * `false` reports "Invalid parameter." without details; a RestError is reported with its code and data, a
   * SchemaIssue as a schema failure (its data, or null).
   */
  validate?: (value: unknown, ctx: ArgContext<R>) => boolean | RestError | SchemaIssue;
  /**
   * Set when `validate` judges by nothing but the value and the request's caller (no site state, no clock): an
   * anonymous request's validated args can then be reused for the same input (see Dispatcher.validate).
   */
  validateDependsOnCallerOnly?: boolean;
  /**
   * WordPress checks args registered without a `validate_callback` only while sanitizing, after every other arg
   * passed; such failures are therefore reported in a second, separate round. Set this to mirror such an arg.
   */
  lateValidation?: boolean;
  /**
   * The shape input is checked and coerced against, when it is not the schema the arg describes (the index
   * shows the described schema; WordPress validates some args with a callback of its own instead).
   */
  accepts?: JsonSchema;
  /** An explicit null is taken whatever the type (WordPress's settings controller lets null through: it deletes the option). */
  nullable?: boolean;
}

/** A failed check, as WordPress's inner WP_Error: `data` is absent when WordPress gives none. */
export class SchemaIssue {
  constructor(
    readonly code: string,
    readonly message: string,
    readonly data?: Record<string, unknown>,
  ) {}
}

export type ArgsResult = { values: Record<string, unknown> } | { error: RestError };

export interface ValidateOptions<R = unknown> {
  /** Handed to `validate` hooks (typically the RestRequest or the caller). */
  request?: R;
}

/** The keywords WordPress keeps for an arg in the index, in this order of registration. */
export const ALLOWED_KEYWORDS = [
  'title',
  'description',
  'default',
  'type',
  'format',
  'enum',
  'items',
  'properties',
  'additionalProperties',
  'patternProperties',
  'minProperties',
  'maxProperties',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'uniqueItems',
  'anyOf',
  'oneOf',
] as const;

const ALLOWED_SET = new Set<string>(ALLOWED_KEYWORDS);
const KNOWN_TYPES = new Set<string>(['array', 'object', 'string', 'number', 'integer', 'boolean', 'null']);

// ---------------------------------------------------------------------------------------------------------------
// Public API

/**
 * Checks and coerces the merged input against the route's args, in WordPress's order: defaults, then missing
 * required args (`rest_missing_callback_param`), then every invalid arg together (`rest_invalid_param`).
 * Unregistered input keys are ignored. `values` holds the coerced value of every arg that has one.
 */
export function validateArgs<R = unknown>(
  args: Record<string, ArgSchema<R>>,
  input: Record<string, unknown>,
  options: ValidateOptions<R> = {},
): ArgsResult {
  const entries = Object.entries(args);

  // A null counts as absent, as PHP's isset() makes it; a default satisfies `required`.
  const missing = entries.filter(([key, arg]) => arg.required === true && isAbsent(input[key]) && !hasDefault(arg)).map(([key]) => key);
  if (missing.length > 0) {
    return { error: restError('rest_missing_callback_param', `Missing parameter(s): ${missing.join(', ')}`, 400, { params: missing }) };
  }

  const coerced = new Map<string, unknown>();
  const early = new Failures();
  const late = new Failures();
  const ctxFor = (key: string): ArgContext<R> => ({ key, input, request: options.request });

  // Round one: what WordPress validates before sanitizing (args with a validate_callback), in args order.
  for (const [key, arg] of entries) {
    if (arg.lateValidation) continue;
    const raw = input[key];
    const value = isAbsent(raw) ? defaultOf(arg) : raw;
    if (value === undefined) continue;
    const outcome = checkArg(key, arg, value, ctxFor(key));
    if ('value' in outcome) coerced.set(key, outcome.value);
    else (outcome.late ? late : early).add(key, outcome.failure);
  }

  // Round two: what WordPress only checks while sanitizing, in the order the input gave the keys.
  for (const [key, raw] of Object.entries(input)) {
    if (!Object.hasOwn(args, key) || raw === undefined) continue;
    const arg = args[key]!;
    if (raw === null) {
      if (arg.nullable) continue;
      // An explicit null skipped validation (isset) but is sanitized: only a nullable type takes it.
      const issue = explain(null, arg.accepts ?? arg, key);
      if (issue) late.add(key, issue);
      continue;
    }
    if (!arg.lateValidation) continue;
    const outcome = checkArg(key, arg, raw, ctxFor(key));
    if ('value' in outcome) coerced.set(key, outcome.value);
    else late.add(key, outcome.failure);
  }
  for (const [key, arg] of entries) {
    if (!arg.lateValidation || !isAbsent(input[key]) || !hasDefault(arg)) continue;
    const outcome = checkArg(key, arg, defaultOf(arg), ctxFor(key));
    if ('value' in outcome) coerced.set(key, outcome.value);
    else late.add(key, outcome.failure);
  }

  if (!early.empty) return { error: early.toError() };
  if (!late.empty) return { error: late.toError() };

  const values: Record<string, unknown> = {};
  for (const [key] of entries) {
    if (coerced.has(key)) values[key] = coerced.get(key);
    else if (input[key] === null) values[key] = null;
  }
  return { values };
}

/**
 * The index's view of a route's args: each arg's allowed schema keywords in its own key order, then
 * `required` (always present). Hooks and unknown keys are left out; nested schemas are kept as they are.
 */
export function describeArgs(args: Record<string, ArgSchema<never>>): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [key, arg] of Object.entries(args)) {
    const entry: Record<string, unknown> = {};
    for (const [keyword, value] of Object.entries(arg)) {
      if (ALLOWED_SET.has(keyword) && value !== undefined) entry[keyword] = value;
    }
    entry.required = phpNotEmpty(arg.required);
    out[key] = entry;
  }
  return out;
}

/** Compiles every arg schema now, so that a malformed schema fails when routes are built, not on a request. */
export function compileArgs(args: Record<string, ArgSchema<never>>): void {
  for (const arg of Object.values(args)) compiled(arg.accepts ?? arg);
}

/** WordPress's rest_validate_value_from_schema: the first failure, or null when the value is valid. */
export function validateValue(value: unknown, schema: JsonSchema, param = ''): SchemaIssue | null {
  return explain(value, schema, param);
}

/** WordPress's rest_sanitize_value_from_schema for a value that validated: the coerced value, or a SchemaIssue. */
export function sanitizeValue(value: unknown, schema: JsonSchema, param = ''): unknown {
  return coerce(value, schema, param, true);
}

/** WordPress's rest_is_array: a list, a PHP array with numeric keys, or a scalar read as a comma/space list. */
export function isArrayLike(value: unknown): boolean {
  if (isScalar(value)) return true;
  if (Array.isArray(value)) return true;
  return isPlainObject(value) && Object.keys(value).every(isPhpIntKey);
}

// ---------------------------------------------------------------------------------------------------------------
// One argument

type Failure = SchemaIssue | RestError | false;
type Outcome = { value: unknown } | { failure: Failure; late: boolean };

function checkArg<R>(key: string, arg: ArgSchema<R>, value: unknown, ctx: ArgContext<R>): Outcome {
  const shape: JsonSchema = arg.accepts ?? arg;
  const entry = compiled(shape);
  let result: unknown;
  const normalised = entry.validate ? coerce(value, shape, key, false) : undefined;
  if (entry.validate && !(normalised instanceof SchemaIssue) && entry.validate(normalised)) {
    result = entry.finalPass ? coerce(value, shape, key, true) : normalised;
  } else {
    const issue = explain(value, shape, key);
    if (issue) return { failure: issue, late: false };
    result = coerce(value, shape, key, true);
  }
  // Coercion can still fail (duplicates that only appear once coerced): WordPress reports those while sanitizing.
  if (result instanceof SchemaIssue) return { failure: result, late: true };
  if (arg.validate) {
    const verdict = arg.validate(result, ctx);
    if (verdict === false || verdict instanceof RestError || verdict instanceof SchemaIssue) return { failure: verdict, late: false };
  }
  return { value: result };
}

class Failures {
  private readonly entries = new Map<string, Failure>();

  get empty(): boolean {
    return this.entries.size === 0;
  }

  add(key: string, failure: Failure): void {
    if (!this.entries.has(key)) this.entries.set(key, failure);
  }

  toError(): RestError {
    const params: Record<string, string> = {};
    const details: Record<string, unknown> = {};
    for (const [key, failure] of this.entries) {
      if (failure === false) {
        params[key] = 'Invalid parameter.';
      } else if (failure instanceof RestError) {
        params[key] = [failure.message, ...failure.additionalErrors.map((e) => e.message)].join(' ');
        details[key] = failure.toJSON();
      } else {
        params[key] = failure.message;
        details[key] = { code: failure.code, message: failure.message, data: failure.data ?? null };
      }
    }
    const keys = [...this.entries.keys()].join(', ');
    return restError('rest_invalid_param', `Invalid parameter(s): ${keys}`, 400, { params, details });
  }
}

const isAbsent = (value: unknown): boolean => value === undefined || value === null;
const hasDefault = (arg: ArgSchema<never>): boolean => arg.default !== undefined && arg.default !== null;
/** A fresh copy, so a handler changing its params cannot change the route's default. */
const defaultOf = (arg: ArgSchema<never>): unknown =>
  !hasDefault(arg) ? undefined : typeof arg.default === 'object' ? structuredClone(arg.default) : arg.default;

// ---------------------------------------------------------------------------------------------------------------
// ajv: one compiled validator per arg schema object

interface Compiled {
  /** Null when only the walker can decide (oneOf/anyOf, format without a type, unknown types). */
  validate: ValidateFunction | null;
  /** Formats sanitize strings (URLs, text fields): the output needs a second, sanitizing coercion. */
  finalPass: boolean;
}

const cache = new WeakMap<object, Compiled>();

const ajv = new Ajv({
  strict: true,
  strictTypes: false,
  strictTuples: false,
  strictRequired: false,
  allowUnionTypes: true,
  allowMatchingProperties: true,
  allErrors: false,
});
// WordPress's vocabulary: annotations that ajv must accept but that do not constrain values.
ajv.addVocabulary(['context', 'readonly']);
// WordPress tests multipleOf with fmod(), which is JavaScript's %, not ajv's division test (0.5 / 0.1 differ).
ajv.addKeyword({
  keyword: 'wpMultipleOf',
  type: 'number',
  schemaType: 'number',
  errors: false,
  validate: (divisor: number, data: number) => data % divisor === 0,
});
// WordPress's own format rules, not ajv-formats': rest_parse_date, is_email and friends accept and refuse other strings.
const FORMAT_CHECKS: Record<string, (value: string) => boolean> = {
  'date-time': isWpDateTime,
  email: isWpEmail,
  ip: isWpIp,
  uuid: isWpUuid,
  'hex-color': isWpHexColor,
  // WordPress only sanitizes these.
  uri: () => true,
  'text-field': () => true,
  'textarea-field': () => true,
};
for (const [name, check] of Object.entries(FORMAT_CHECKS)) ajv.addFormat(name, { type: 'string', validate: check });

function compiled(schema: JsonSchema): Compiled {
  let entry = cache.get(schema);
  if (!entry) {
    const flags = { walkerOnly: false, formats: false };
    const translated = toAjvSchema(schema, flags);
    const validate = ajv.compile(translated);
    // The WeakMap owns the validator; ajv's own cache would keep every translated schema alive.
    ajv.removeSchema(translated);
    entry = { validate: flags.walkerOnly ? null : validate, finalPass: flags.formats };
    cache.set(schema, entry);
  }
  return entry;
}

/** WordPress's dialect in ajv's (draft-07) terms; annotations and hooks are dropped. */
function toAjvSchema(schema: JsonSchema, flags: { walkerOnly: boolean; formats: boolean }): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const sub = (s: JsonSchema) => toAjvSchema(s, flags);
  for (const [key, value] of Object.entries(schema)) {
    if (value === undefined || typeof value === 'function') continue;
    switch (key) {
      case 'title':
      case 'description':
      case 'default':
      case 'arg_options':
      case 'lateValidation':
      case 'nullable':
      case 'validateDependsOnCallerOnly':
      case '$schema':
      case 'exclusiveMinimum':
      case 'exclusiveMaximum':
        continue;
      case 'required':
        if (Array.isArray(value)) out.required = [...value];
        continue;
      case 'type': {
        const types = Array.isArray(value) ? value : [value];
        if (types.every((t) => KNOWN_TYPES.has(t))) out.type = Array.isArray(value) ? [...value] : value;
        else flags.walkerOnly = true;
        continue;
      }
      case 'properties': {
        const props = value as Record<string, JsonSchema>;
        out.properties = Object.fromEntries(Object.entries(props).map(([name, s]) => [name, sub(s)]));
        if (!Array.isArray(schema.required)) {
          const required = Object.entries(props).filter(([, s]) => s?.required === true).map(([name]) => name);
          if (required.length > 0) out.required = required;
        }
        continue;
      }
      case 'patternProperties':
        out.patternProperties = Object.fromEntries(Object.entries(value as Record<string, JsonSchema>).map(([p, s]) => [p, sub(s)]));
        continue;
      case 'items':
        if (isPlainObject(value)) out.items = sub(value as JsonSchema);
        else flags.walkerOnly = true;
        continue;
      case 'additionalProperties':
        out.additionalProperties = typeof value === 'boolean' ? value : sub(value as JsonSchema);
        continue;
      case 'anyOf':
      case 'oneOf':
        flags.walkerOnly = true;
        out[key] = (value as JsonSchema[]).map(sub);
        continue;
      case 'minimum':
        out[schema.exclusiveMinimum ? 'exclusiveMinimum' : 'minimum'] = value;
        continue;
      case 'maximum':
        out[schema.exclusiveMaximum ? 'exclusiveMaximum' : 'maximum'] = value;
        continue;
      case 'multipleOf':
        out.wpMultipleOf = value;
        continue;
      case 'enum':
        if ((value as unknown[]).length > 0) out.enum = [...(value as unknown[])];
        continue;
      case 'format':
        flags.formats = true;
        // WordPress ignores formats it does not know; without a type it checks any value, ajv only strings.
        if (Object.hasOwn(FORMAT_CHECKS, value as string)) out.format = value;
        if (schema.type === undefined) flags.walkerOnly = true;
        continue;
      default:
        out[key] = value;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// The walker: WordPress's validation order and messages

const typeIssue = (param: string, type: string) => new SchemaIssue('rest_invalid_type', `${param} is not of type ${type}.`, { param });

function explain(value: unknown, schema: JsonSchema, param: string): SchemaIssue | null {
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
      issue = explainNumber(value, schema, param, 'integer') ?? (isIntegerLike(value) ? null : typeIssue(param, 'integer'));
      break;
    case 'string':
      issue = explainString(value, schema, param);
      break;
  }
  if (issue) return issue;

  if (schema.enum && schema.enum.length > 0) {
    const enumIssue = explainEnum(value, resolved === schema.type ? schema : { ...schema, type: resolved as SchemaType }, param);
    if (enumIssue) return enumIssue;
  }

  if (schema.format !== undefined && (resolved === undefined || resolved === 'string' || !KNOWN_TYPES.has(resolved))) {
    const text = typeof value === 'string' ? value : isScalar(value) ? phpString(value) : null;
    switch (schema.format) {
      case 'hex-color':
        if (text === null || !isWpHexColor(text)) return new SchemaIssue('rest_invalid_hex_color', 'Invalid hex color.');
        break;
      case 'date-time':
        if (text === null || !isWpDateTime(text)) return new SchemaIssue('rest_invalid_date', 'Invalid date.');
        break;
      case 'email':
        if (text === null || !isWpEmail(text)) return new SchemaIssue('rest_invalid_email', 'Invalid email address.');
        break;
      case 'ip':
        if (text === null || !isWpIp(text)) return new SchemaIssue('rest_invalid_ip', `${param} is not a valid IP address.`);
        break;
      case 'uuid':
        if (typeof value !== 'string' || !isWpUuid(value)) return new SchemaIssue('rest_invalid_uuid', `${param} is not a valid UUID.`);
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
    return new SchemaIssue('rest_too_few_properties', `${param} must contain at least ${formatCount(n)} ${n === 1 ? 'property' : 'properties'}.`);
  }
  if (schema.maxProperties != null && entries.length > schema.maxProperties) {
    const n = schema.maxProperties;
    return new SchemaIssue('rest_too_many_properties', `${param} must contain at most ${formatCount(n)} ${n === 1 ? 'property' : 'properties'}.`);
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
    return new SchemaIssue('rest_too_few_items', `${param} must contain at least ${formatCount(n)} ${n === 1 ? 'item' : 'items'}.`);
  }
  if (schema.maxItems != null && list.length > schema.maxItems) {
    const n = schema.maxItems;
    return new SchemaIssue('rest_too_many_items', `${param} must contain at most ${formatCount(n)} ${n === 1 ? 'item' : 'items'}.`);
  }
  if (schema.uniqueItems && !allUnique(list)) return new SchemaIssue('rest_duplicate_items', `${param} has duplicate items.`);
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
      return new SchemaIssue('rest_too_short', `${param} must be at least ${formatCount(n)} ${n === 1 ? 'character' : 'characters'} long.`);
    }
    if (schema.maxLength != null && length > schema.maxLength) {
      const n = schema.maxLength;
      return new SchemaIssue('rest_too_long', `${param} must be at most ${formatCount(n)} ${n === 1 ? 'character' : 'characters'} long.`);
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

function findAnyMatch(value: unknown, schema: JsonSchema, param: string): JsonSchema | SchemaIssue {
  const errors: BranchError[] = [];
  for (const [index, raw] of (schema.anyOf ?? []).entries()) {
    const branch = branchOf(raw, schema);
    const issue = explain(value, branch, param);
    if (!issue) return branch;
    errors.push({ issue, schema: branch, index });
  }
  return combiningIssue(value, param, errors);
}

function findOneMatch(value: unknown, schema: JsonSchema, param: string, stopAtFirst = false): JsonSchema | SchemaIssue {
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
      return new SchemaIssue('rest_one_of_multiple_matches', `${param} matches ${listText(titles)}, but should match only one.`, { positions });
    }
    return new SchemaIssue('rest_one_of_multiple_matches', `${param} matches more than one of the expected formats.`, { positions });
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
  const filtered = errors.filter((e) => e.issue.code !== 'rest_invalid_type' || (e.issue.data?.param !== undefined && e.issue.data.param !== param));
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
  if (titles.length === errors.length) return new SchemaIssue('rest_no_matching_schema', `${param} is not a valid ${listText(titles)}.`);
  return new SchemaIssue('rest_no_matching_schema', `${param} does not match any of the expected formats.`);
}

function branchIssue(param: string, error: BranchError): SchemaIssue {
  const reason = error.issue.message;
  const data = { position: error.index };
  if (error.schema.title !== undefined) {
    return new SchemaIssue('rest_no_matching_schema', `${param} is not a valid ${error.schema.title}. Reason: ${reason}`, data);
  }
  return new SchemaIssue('rest_no_matching_schema', `${param} does not match the expected format. Reason: ${reason}`, data);
}

// ---------------------------------------------------------------------------------------------------------------
// Coercion: WordPress's sanitizing, applied only where the type test passes

/**
 * `final` false: the lossless reading handed to ajv (no string sanitizing, no duplicate check, nothing that could
 * turn an invalid value into a valid one). `final` true: WordPress's sanitized output for a validated value.
 */
function coerce(value: unknown, schema: JsonSchema, param: string, final: boolean): unknown {
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
      if (final && schema.uniqueItems && !allUnique(list)) return new SchemaIssue('rest_duplicate_items', `${param} has duplicate items.`);
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

  if (final && typeof value === 'string' && schema.format !== undefined && (resolved === undefined || resolved === 'string' || !KNOWN_TYPES.has(resolved))) {
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
  const out: Record<string, unknown> | unknown[] = isList ? [...(value as unknown[])] : { ...(value as Record<string, unknown>) };
  const target = out as Record<string, unknown>;
  for (const key of Object.keys(out)) {
    const property = schema.properties && Object.hasOwn(schema.properties, key) ? schema.properties[key] : undefined;
    const sub = property ?? patternSchema(key, schema) ?? (isPlainObject(schema.additionalProperties) ? (schema.additionalProperties as JsonSchema) : undefined);
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

// ---------------------------------------------------------------------------------------------------------------
// PHP's and WordPress's type tests

const PHP_WS = ' \\t\\n\\r\\v\\f';
const NUMERIC = new RegExp(`^[${PHP_WS}]*[+-]?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?[${PHP_WS}]*$`);

function isScalar(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** PHP's is_numeric (PHP 8: surrounding whitespace allowed, no hex, no INF). */
function isNumeric(value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value);
  return typeof value === 'string' && NUMERIC.test(value);
}

/** WordPress's rest_is_integer: numeric and whole ("5.0" is, "1.5" is not). */
function isIntegerLike(value: unknown): boolean {
  if (!isNumeric(value)) return false;
  const n = Number(value);
  return Math.round(n) === n;
}

/** WordPress's rest_is_boolean. */
function isBooleanLike(value: unknown): boolean {
  if (typeof value === 'boolean') return true;
  if (typeof value === 'string') return ['false', 'true', '0', '1'].includes(value.toLowerCase());
  return value === 0 || value === 1;
}

function toBoolean(value: unknown): boolean {
  if (typeof value === 'string') return !['false', '0', ''].includes(value.toLowerCase());
  return Boolean(value);
}

/** WordPress's rest_is_object: a map, a PHP array (so also a list), or "". */
function isObjectLike(value: unknown): boolean {
  return value === '' || (value !== null && typeof value === 'object');
}

function objectEntries(value: unknown): [string, unknown][] {
  if (value === '' || value === null || typeof value !== 'object') return [];
  if (Array.isArray(value)) return value.map((v, i) => [String(i), v]);
  return Object.entries(value);
}

/** A key PHP would store as an integer ("0", "12", "-3"; not "01"). */
function isPhpIntKey(key: string): boolean {
  return /^(0|-?[1-9]\d*)$/.test(key);
}

/** WordPress's wp_parse_list: splits on commas and whitespace, dropping empty parts. */
function parseList(text: string): string[] {
  return text.split(/[\s,]+/).filter((part) => part !== '');
}

function toList(value: unknown): unknown[] {
  if (isScalar(value)) return parseList(phpString(value));
  if (Array.isArray(value)) return [...value];
  if (isPlainObject(value)) return Object.values(value);
  return [];
}

function bestType(value: unknown, types: readonly SchemaType[]): SchemaType | '' {
  // "" could be an empty array or object, but a string is the better reading.
  if (value === '' && types.includes('string')) return 'string';
  for (const type of types) {
    const fits =
      (type === 'array' && isArrayLike(value)) ||
      (type === 'object' && isObjectLike(value)) ||
      (type === 'integer' && isIntegerLike(value)) ||
      (type === 'number' && isNumeric(value)) ||
      (type === 'boolean' && isBooleanLike(value)) ||
      (type === 'string' && typeof value === 'string') ||
      (type === 'null' && value === null);
    if (fits) return type;
  }
  return '';
}

function patternSchema(key: string, schema: JsonSchema): JsonSchema | undefined {
  if (!schema.patternProperties) return undefined;
  for (const [pattern, sub] of Object.entries(schema.patternProperties)) if (patternMatches(pattern, key)) return sub;
  return undefined;
}

const patterns = new Map<string, RegExp | null>();
/** WordPress matches schema patterns unanchored, in Unicode mode; a pattern that does not compile matches nothing. */
function patternMatches(pattern: string, value: string): boolean {
  let re = patterns.get(pattern);
  if (re === undefined) {
    try {
      re = new RegExp(pattern, 'u');
    } catch {
      re = null;
    }
    patterns.set(pattern, re);
  }
  return re?.test(value) === true;
}

function codePointLength(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** JSON-schema equality: lists by position, objects whatever their key order. */
function valuesEqual(a: unknown, b: unknown): boolean {
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    const ea = objectEntries(a);
    const eb = new Map(objectEntries(b));
    return ea.length === eb.size && ea.every(([k, v]) => eb.has(k) && valuesEqual(v, eb.get(k)));
  }
  return a === b;
}

function stableKey(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'undefined';
  const entries = objectEntries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableKey(v)}`).join(',')}}`;
}

function allUnique(list: unknown[]): boolean {
  const seen = new Set<string>();
  for (const item of list) {
    const key = stableKey(item);
    if (seen.has(key)) return false;
    seen.add(key);
  }
  return true;
}

/** PHP's empty(), negated: how WordPress reads `required` for the index. */
function phpNotEmpty(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  return Boolean(value) && value !== '0';
}

// ---------------------------------------------------------------------------------------------------------------
// Wording helpers

/** A scalar as PHP prints it: true is "1", false is "", floats with 14 significant digits. */
function phpString(value: string | number | boolean): string {
  if (typeof value === 'boolean') return value ? '1' : '';
  if (typeof value === 'number') {
    if (Number.isInteger(value) && Math.abs(value) < 1e15) return String(value);
    return String(Number(value.toPrecision(14)));
  }
  return value;
}

/** wp_json_encode's defaults: slashes and non-ASCII characters escaped. */
function phpJsonEncode(value: unknown): string {
  return (JSON.stringify(value) ?? 'null').replace(/\//g, '\\/').replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** "a", "a and b", "a, b, and c": WordPress's list wording. */
function listText(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? '';
  if (items.length === 2) return `${items[0]} and ${items[1]}`;
  return `${items.slice(0, -1).join(', ')}, and ${items[items.length - 1]}`;
}

/** number_format_i18n in English: rounded, with thousands separators. */
function formatCount(n: number): string {
  return Math.round(n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

// ---------------------------------------------------------------------------------------------------------------
// Formats

// PHP's `$` also matches just before a final newline, hence the `\n?` in the patterns below.
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:Z|[+-](\d{2})(?::(\d{2}))?)?\n?$/;

/**
 * WordPress's shape check, then what PHP's strtotime() accepts: month up to 12, day up to 31 (it rolls
 * over, so the 30th of February passes), hour up to 24, second up to 60.
 */
function isWpDateTime(value: string): boolean {
  const m = DATE_TIME.exec(value);
  if (!m) return false;
  const [month, day, hour, minute, second] = [m[2], m[3], m[4], m[5], m[6]].map(Number) as [number, number, number, number, number];
  if (month > 12 || day > 31 || hour > 24 || minute > 59 || second > 60) return false;
  if (m[7] !== undefined && (Number(m[7]) > 24 || Number(m[8] ?? 0) > 59)) return false;
  return true;
}

/** WordPress's is_email rules. */
function isWpEmail(value: string): boolean {
  if (Buffer.byteLength(value) < 6) return false;
  if (value.indexOf('@', 1) === -1) return false;
  const at = value.indexOf('@');
  const local = value.slice(0, at);
  const domain = value.slice(at + 1);
  if (!/^[a-zA-Z0-9!#$%&'*+/=?^_`{|}~.-]+$/.test(local)) return false;
  if (/\.{2,}/.test(domain)) return false;
  if (phpTrim(domain, ' \t\n\r\0\x0B.') !== domain) return false;
  const subs = domain.split('.');
  if (subs.length < 2) return false;
  return subs.every((sub) => phpTrim(sub, ' \t\n\r\0\x0B-') === sub && /^[a-z0-9-]+$/i.test(sub));
}

const IPV4 = /^(?:(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)\.){3}(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)\n?$/;
function isWpIp(value: string): boolean {
  return IPV4.test(value) || isIPv6(value);
}

function isWpUuid(value: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\n?$/.test(value);
}

function isWpHexColor(value: string): boolean {
  return /^#([A-Fa-f0-9]{3}){1,2}\n?$/.test(value);
}

// ---------------------------------------------------------------------------------------------------------------
// Sanitizers applied to formatted strings

function phpTrim(text: string, chars = ' \t\n\r\0\x0B'): string {
  let start = 0;
  let end = text.length;
  while (start < end && chars.includes(text[start]!)) start++;
  while (end > start && chars.includes(text[end - 1]!)) end--;
  return text.slice(start, end);
}

function escapeHtml(text: string): string {
  return text
    .replace(/&(?!#?\w+;)/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#039;');
}

/** WordPress's sanitize_text_field (and sanitize_textarea_field when newlines are kept). */
function sanitizeTextField(text: string, keepNewlines: boolean): string {
  let out = text;
  if (out.includes('<')) {
    // A "<" that opens no tag is kept as text; tags (and script/style bodies) go.
    out = out.replace(/<[^>]*?(?:(?=<)|>|$)/g, (m) => (m.includes('>') ? m : escapeHtml(m)));
    out = out.replace(/<(script|style)[^>]*?>.*?<\/\1>/gis, '');
    out = phpTrim(out.replace(/<[^>]*>/g, ''));
    out = out.replace(/<\n/g, '&lt;\n');
  }
  if (!keepNewlines) out = out.replace(/[\r\n\t ]+/g, ' ');
  out = phpTrim(out);
  // Percent-encoded octets are removed, repeatedly, since removal can form new ones.
  let found = false;
  while (/%[a-f0-9]{2}/i.test(out)) {
    out = out.replace(/%[a-f0-9]{2}/gi, '');
    found = true;
  }
  if (found) out = phpTrim(out.replace(/ +/g, ' '));
  return out;
}

const ALLOWED_PROTOCOLS = new Set([
  'http', 'https', 'ftp', 'ftps', 'mailto', 'news', 'irc', 'irc6', 'ircs', 'gopher', 'nntp', 'feed', 'telnet', 'mms', 'rtsp',
  'sms', 'svn', 'tel', 'fax', 'xmpp', 'webcal', 'urn',
]);

/**
 * WordPress's sanitize_url (esc_url for the database): drops characters URLs cannot hold, presumes http:// for a
 * bare host, and empties a URL whose scheme is not an allowed protocol (javascript:, data:…).
 */
function sanitizeUrl(input: string): string {
  if (input === '') return '';
  let url = input.replace(/^[ \t\n\r\0\x0B]+/, '').replace(/ /g, '%20');
  url = url.replace(/[^a-z0-9\-~+_.?#=!&;,/:%@$|*'()[\]\u0080-\uffff]/gi, '');
  if (url === '') return '';
  if (!/^mailto:/i.test(url)) {
    while (/%0[ad]/i.test(url)) url = url.replace(/%0[ad]/gi, '');
  }
  url = url.replace(/;\/\//g, '://');
  if (!url.includes(':') && !['/', '#', '?'].includes(url[0]!) && !/^[a-z0-9-]+?\.php/i.test(url)) url = `http://${url}`;
  if (/[[\]]/.test(url)) {
    // Brackets may stay in an (IPv6) host, not after it.
    const front = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(url)?.[0] ?? '';
    url = front + url.slice(front.length).replace(/\[/g, '%5B').replace(/\]/g, '%5D');
  }
  if (url.startsWith('/')) return url;
  const colon = /:|&#0*58;|&#x0*3a;/i.exec(url);
  if (colon && !/\/\?/.test(url.slice(0, colon.index))) {
    const protocol = url.slice(0, colon.index).replace(/\s/g, '').toLowerCase();
    if (!ALLOWED_PROTOCOLS.has(protocol)) return '';
    return `${protocol}:${phpTrim(url.slice(colon.index + colon[0].length))}`;
  }
  return url;
}

/** 2^63: PHP's integers are below it (and at or above its negation). */
export const PHP_INT_LIMIT = 2 ** 63;

/**
 * PHP's `(int)` of a numeric value, as WordPress sanitizes an integer argument. A numeric string that overflows to
 * infinity (`"1e400"`) is 0; one beyond PHP's integers but finite (`"99999999999999999999"`, `"1e308"`) is held at
 * PHP_INT_MAX (or PHP_INT_MIN), which as a JS number is ±2^63 (see phpIntegerText). A JSON number is kept as it is
 * (only an infinite one is 0): Infinity would reach the read model.
 */
function phpIntegerCast(value: string | number): number {
  const n = Number(value);
  if (!Number.isFinite(n)) return 0;
  if (typeof value === 'string' && Math.abs(n) >= PHP_INT_LIMIT) return Math.sign(n) * PHP_INT_LIMIT;
  return n;
}
