/**
 * Freezes a value and everything it holds, throughout; a value already frozen is taken as frozen throughout. Meant for
 * plain data (parsed JSON, validated arguments): own enumerable keys only.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    // Loops rather than Object.values: loading a read model freezes millions of objects, and each array is garbage.
    if (Array.isArray(value)) for (let i = 0; i < value.length; i++) deepFreeze(value[i]);
    else for (const key in value) if (Object.hasOwn(value, key)) deepFreeze(value[key]);
  }
  return value;
}
