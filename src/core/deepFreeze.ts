/**
 * Freezes a value and everything it holds, throughout; a value already frozen is taken as frozen throughout. Meant for
 * plain data (parsed JSON, validated arguments): own enumerable keys only.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    // for…in rather than Object.values: no array of the values for each object.
    for (const key in value) if (Object.hasOwn(value, key)) deepFreeze(value[key]);
  }
  return value;
}
