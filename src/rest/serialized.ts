/**
 * Response values that carry their own JSON. A presented item that is cached and served again and again is
 * serialised once, when it is made, to UTF-8; a page of such items is then written by concatenating those
 * bytes (no string to build, flatten and encode again), which is byte for byte what JSON.stringify of the
 * page gives. The JSON sits under a symbol, which JSON.stringify,
 * spreading (non-enumerable) and Object.entries all ignore, and the value is frozen, so nobody can change it
 * behind its JSON's back: `_embed`, `_fields` and the envelope build new objects and are serialised normally.
 */
const SERIALIZED = Symbol('serialized JSON');

type WithJson = { [SERIALIZED]?: Buffer };
const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');

/**
 * Freezes `value` deeply and keeps its JSON with it. Returns the same object. The JSON gets memory of its own
 * (not a slice of Node's shared 8 KB buffer pool, which a long-kept slice would pin whole), so what a cache of
 * such values holds is what serializedLength says.
 */
export function withSerializedJson<T extends object>(value: T): T {
  const json = JSON.stringify(value);
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(json));
  bytes.write(json);
  Object.defineProperty(value, SERIALIZED, { value: bytes, enumerable: false });
  return deepFreeze(value);
}

/** The length in bytes of the JSON kept by withSerializedJson (0 for a value without). */
export function serializedLength(value: object): number {
  return (value as WithJson)[SERIALIZED]?.length ?? 0;
}

/** The JSON of a response body, reusing the JSON kept by withSerializedJson for the body or its items. */
export function serializeBody(body: unknown): string | Buffer {
  if (body !== null && typeof body === 'object') {
    const own = (body as WithJson)[SERIALIZED];
    if (own !== undefined) return own;
    if (Array.isArray(body) && body.length > 0) {
      const parts: Buffer[] = [OPEN];
      for (let i = 0; i < body.length; i++) {
        const item = body[i] as WithJson | null;
        const json = item !== null && typeof item === 'object' ? item[SERIALIZED] : undefined;
        if (json === undefined) return JSON.stringify(body);
        if (i > 0) parts.push(COMMA);
        parts.push(json);
      }
      parts.push(CLOSE);
      return Buffer.concat(parts);
    }
  }
  return JSON.stringify(body);
}

/** A body sent as these bytes rather than as JSON (oEmbed's XML format); pair it with its Content-Type header. */
export function rawBody(text: string): object {
  const value = {};
  Object.defineProperty(value, SERIALIZED, { value: Buffer.from(text), enumerable: false });
  return Object.freeze(value);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    // for…in rather than Object.values: no array of the values for each object (own enumerable keys only, as
    // the values are plain objects and arrays).
    for (const key in value) if (Object.hasOwn(value, key)) deepFreeze(value[key]);
  }
  return value;
}
