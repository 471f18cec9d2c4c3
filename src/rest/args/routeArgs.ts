/**
 * A route's arguments: JSON schemas (as WordPress writes them) checked and coerced the way WordPress 6.1 does it,
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
import { RestError, restError } from '../errors';
import { compiled } from './ajvValidators';
import {
  ALLOWED_SET,
  type ArgContext,
  type ArgSchema,
  type ArgsResult,
  type JsonSchema,
  SchemaIssue,
  type ValidateOptions,
} from './schema';
import { coerce, explain } from './walkers';

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
  const missing = entries
    .filter(([key, arg]) => arg.required === true && isAbsent(input[key]) && !hasDefault(arg))
    .map(([key]) => key);
  if (missing.length > 0) {
    return {
      error: restError('rest_missing_callback_param', `Missing parameter(s): ${missing.join(', ')}`, 400, {
        params: missing,
      }),
    };
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
    if (verdict === false || verdict instanceof RestError || verdict instanceof SchemaIssue)
      return { failure: verdict, late: false };
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

/** PHP's empty(), negated: how WordPress reads `required` for the index. */
function phpNotEmpty(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  return Boolean(value) && value !== '0';
}
