/**
 * JSONP (`?_jsonp=callback`), as WordPress serves it: checked before anything else (authentication included),
 * a callback with characters other than letters, digits, `_` and `.` is refused; a valid one wraps the JSON
 * answer as `/**\/callback(json)` in JavaScript.
 */
import type { RestResult } from './route';

/** The callback asked for, or null when the request is not JSONP. */
export function jsonpCallback(query: Record<string, unknown>): string | null {
  const value = query._jsonp;
  if (value === undefined) return null;
  return typeof value === 'string' ? value : '';
}

/** The refusal of an unusable callback (WordPress sends it without `data`), or null when it is fine. */
export function invalidJsonpCallback(query: Record<string, unknown>): RestResult | null {
  const value = query._jsonp;
  if (value === undefined) return null;
  if (typeof value === 'string' && /^[\w.]*$/.test(value)) return null;
  return {
    status: 400,
    body: { code: 'rest_callback_invalid', message: 'Invalid JSONP callback function.' },
    headers: {},
  };
}

/** The JavaScript body of a JSONP answer. */
export const jsonpBody = (callback: string, json: string): string => `/**/${callback}(${json})`;
