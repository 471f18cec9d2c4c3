/**
 * Response values that carry their own JSON. A presented item that is cached and served again and again is
 * serialised once, when it is made, to UTF-8; a page of such items is then written by concatenating those
 * bytes (no string to build, flatten and encode again), which is byte for byte what JSON.stringify of the
 * page gives. The JSON sits under a symbol, which JSON.stringify,
 * spreading (non-enumerable) and Object.entries all ignore, and the value is a read-only stand-in kept as its JSON
 * only (keptAsJson) or frozen (rawBody), so nobody can change it behind its JSON's back: `_embed`, `_fields` and the
 * envelope build new objects and are serialised normally.
 */
import { deepFreeze } from '../core/deepFreeze';

const SERIALIZED = Symbol('serialized JSON');

type WithJson = { [SERIALIZED]?: Buffer };
const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');

/**
 * A value's JSON as its own UTF-8 bytes (not a slice of Node's shared 8 KB buffer pool, which a long-kept slice
 * would pin whole), so what a cache of kept values holds is what serializedLength says.
 */
function ownJson(value: object): Buffer {
  const json = JSON.stringify(value);
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(json));
  bytes.write(json);
  return bytes;
}

interface StandIn {
  json: Buffer;
  /** Fields answered without rebuilding the value. */
  eager: Record<string, unknown>;
  /** The value rebuilt from `json`, while someone holds it. */
  rebuilt: WeakRef<object> | undefined;
}

function rebuilt(standIn: StandIn): object {
  let value = standIn.rebuilt?.deref();
  if (value === undefined) {
    value = JSON.parse(standIn.json.toString('utf8')) as object;
    Object.defineProperty(value, SERIALIZED, { value: standIn.json, enumerable: false });
    deepFreeze(value);
    standIn.rebuilt = new WeakRef(value);
  }
  return value;
}

const STAND_IN: ProxyHandler<StandIn> = {
  get: (standIn, key) =>
    key === SERIALIZED
      ? standIn.json
      : Object.hasOwn(standIn.eager, key)
        ? standIn.eager[key as string]
        : Reflect.get(rebuilt(standIn), key),
  has: (standIn, key) => key === SERIALIZED || Reflect.has(rebuilt(standIn), key),
  ownKeys: (standIn) => Reflect.ownKeys(rebuilt(standIn)),
  // Reported configurable: a proxy may not report a non-configurable property its target lacks.
  getOwnPropertyDescriptor: (standIn, key) => {
    const descriptor = Reflect.getOwnPropertyDescriptor(rebuilt(standIn), key);
    return descriptor === undefined ? undefined : { ...descriptor, configurable: true };
  },
  getPrototypeOf: () => Object.prototype,
  // Read-only, as a frozen object is.
  set: () => false,
  defineProperty: () => false,
  deleteProperty: () => false,
  setPrototypeOf: () => false,
  preventExtensions: () => false,
};

/**
 * `value` kept as its JSON only, for a cache: a frozen object of presented fields takes two to three times its
 * JSON's bytes of heap. What it gives back stands in for the value: serializeBody writes its JSON without looking
 * inside, the `eager` fields (copied from `value`; undefined when it has none) answer at once, and anything else
 * that looks inside (`_fields`, `_embed`, an envelope, spreading, JSON.stringify of a body holding it) sees the value
 * rebuilt from its JSON, frozen, kept only while someone holds it. It cannot be changed; unlike a frozen object,
 * Object.isFrozen says false.
 */
export function keptAsJson<T extends object>(value: T, eager: readonly (keyof T & string)[]): T {
  const fields: Record<string, unknown> = {};
  for (const key of eager) fields[key] = Object.hasOwn(value, key) ? value[key] : undefined;
  return new Proxy<StandIn>({ json: ownJson(value), eager: fields, rebuilt: undefined }, STAND_IN) as unknown as T;
}

/** The length in bytes of the JSON kept by keptAsJson or rawBody (0 for a value without). */
export function serializedLength(value: object): number {
  return (value as WithJson)[SERIALIZED]?.length ?? 0;
}

/** The JSON of a response body, reusing the JSON kept by keptAsJson or rawBody for the body or its items. */
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
export function rawBody(text: string | Buffer): object {
  const value = {};
  Object.defineProperty(value, SERIALIZED, {
    value: typeof text === 'string' ? Buffer.from(text) : text,
    enumerable: false,
  });
  return Object.freeze(value);
}
