/**
 * ajv: one compiled validator per arg schema object, the fast path for valid input. WordPress's dialect is
 * translated to ajv's; schemas ajv cannot judge as WordPress does are left to the walker (see walkers.ts).
 */
import Ajv from 'ajv';
import type { ValidateFunction } from 'ajv';
import { FORMAT_CHECKS } from './formats';
import { isPlainObject } from './phpTypes';
import { type JsonSchema, KNOWN_TYPES } from './schema';

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
for (const [name, check] of Object.entries(FORMAT_CHECKS)) ajv.addFormat(name, { type: 'string', validate: check });

export function compiled(schema: JsonSchema): Compiled {
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
          const required = Object.entries(props)
            .filter(([, s]) => s?.required === true)
            .map(([name]) => name);
          if (required.length > 0) out.required = required;
        }
        continue;
      }
      case 'patternProperties':
        out.patternProperties = Object.fromEntries(
          Object.entries(value as Record<string, JsonSchema>).map(([p, s]) => [p, sub(s)]),
        );
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
