/**
 * The shapes of route arguments: the JSON-schema dialect WordPress writes them in, the per-arg hooks, the failure
 * type the checks report, and the keywords the index keeps.
 */
import type { RestError } from '../errors';

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

export const ALLOWED_SET = new Set<string>(ALLOWED_KEYWORDS);
export const KNOWN_TYPES = new Set<string>(['array', 'object', 'string', 'number', 'integer', 'boolean', 'null']);
