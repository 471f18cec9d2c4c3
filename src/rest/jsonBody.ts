/**
 * A JSON request body as WordPress reads it (json_decode with PHP's default depth): the parameters of an object, none
 * of anything else, and invalid when malformed or nested deeper than PHP allows (`rest_invalid_json`, see
 * jsonErrors.ts for the code it reports).
 *
 * JSON.parse makes `"__proto__"` an own key, which a later Object.assign or `obj[key] = value` would take for the
 * prototype: the keys `__proto__`, `constructor` and `prototype` are dropped at every level (WordPress has no
 * parameter or property of those names). Both checks are one loop over the value (JSON.parse itself does not
 * recurse), so no depth of nesting reaches the stack.
 */
import { isUtf8 } from 'node:buffer';
import { isUnsafeKey } from './query';

/**
 * PHP's json_decode depth (512) counts the scalars inside the innermost array as a level: 511 nested arrays or
 * objects are read, 512 are "Maximum stack depth exceeded".
 */
export const MAX_JSON_CONTAINER_DEPTH = 511;

export type JsonBody = { params: Record<string, unknown> } | { invalid: true };

export function parseJsonBody(raw: Buffer): JsonBody {
  // PHP's json_decode refuses malformed UTF-8 (json_error_code 5) where decoding would substitute U+FFFD.
  if (!isUtf8(raw)) return { invalid: true };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    return { invalid: true };
  }
  if (!withinDepthAndCleaned(parsed)) return { invalid: true };
  // A JSON body that is not an object carries no parameters (WordPress reads only objects).
  return {
    params:
      parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
        ? (parsed as Record<string, unknown>)
        : {},
  };
}

/** Whether a parsed value nests no deeper than PHP reads; drops the unsafe keys on the way (in place). */
export function withinDepthAndCleaned(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true;
  const pending: [object, number][] = [[value, 1]];
  while (pending.length > 0) {
    const [node, depth] = pending.pop()!;
    if (depth > MAX_JSON_CONTAINER_DEPTH) return false;
    if (Array.isArray(node)) {
      for (const item of node) if (item !== null && typeof item === 'object') pending.push([item, depth + 1]);
      continue;
    }
    const record = node as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      if (isUnsafeKey(key)) {
        delete record[key];
        continue;
      }
      const item = record[key];
      if (item !== null && typeof item === 'object') pending.push([item, depth + 1]);
    }
  }
  return true;
}
