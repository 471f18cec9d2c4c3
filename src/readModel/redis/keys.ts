/**
 * The Redis read model's key layout (described in readModel.ts) and the encodings keys and members are made of:
 * CESU-8 text, the order-preserving ord() of scalars, escaped names; and the keys of a read model under its prefix.
 */
import type { Scalar } from '../../ports/readModel';

export const SURROGATE = /[\uD800-\uDFFF]/;

/** CESU-8: UTF-8 applied to each UTF-16 code unit, so byte order is code-unit order and lone surrogates survive. */
export function cesu8(s: string): Buffer {
  if (!SURROGATE.test(s)) return Buffer.from(s, 'utf8');
  const bytes: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const u = s.charCodeAt(i);
    if (u < 0x80) bytes.push(u);
    else if (u < 0x800) bytes.push(0xc0 | (u >> 6), 0x80 | (u & 0x3f));
    else bytes.push(0xe0 | (u >> 12), 0x80 | ((u >> 6) & 0x3f), 0x80 | (u & 0x3f));
  }
  return Buffer.from(bytes);
}

/** Order-preserving, prefix-free encoding of a scalar (see readModel.ts's header). */
export function ord(value: Scalar): Buffer {
  if (typeof value === 'number') {
    // Every byte is written (allocUnsafe takes small buffers from a shared pool: a rebuild makes millions).
    const b = Buffer.allocUnsafe(9);
    b[0] = 1;
    b.writeDoubleBE(value === 0 ? 0 : value, 1);
    if (b[1]! & 0x80) for (let i = 1; i < 9; i++) b[i] = ~b[i]! & 0xff;
    else b[1] = b[1]! | 0x80;
    return b;
  }
  const raw = cesu8(value);
  let low = 0;
  for (const x of raw) if (x < 2) low++;
  const out = Buffer.allocUnsafe(raw.length + low + 2);
  out[0] = 2;
  let j = 1;
  for (const x of raw) {
    if (x < 2) {
      out[j++] = 1;
      out[j++] = x + 1;
    } else out[j++] = x;
  }
  out[j] = 0;
  return out;
}

/** A name inside a key: ':' and '%' escaped, so names cannot run into each other. */
export function name(s: string): Buffer {
  return cesu8(s.replace(/[%:]/g, (c) => (c === '%' ? '%25' : '%3A')));
}

export const COLON = Buffer.from(':');

export function setSuffix(field: string, value: Scalar): Buffer {
  return Buffer.concat([name(field), COLON, ord(value)]);
}

/** The partition order zset of a partition field and a sort key (or `id`): `C:q:<field>:<key>`. */
export function partitionSuffix(field: string, key: string): Buffer {
  return Buffer.concat([name(field), COLON, key === 'id' ? Buffer.from('id') : name(key)]);
}

/**
 * The key parts a commit's arguments repeat (field and column names, set suffixes, partition zset suffixes), each
 * encoded once per COMMIT call: a bulk step of 500 documents names the same fields 500 times.
 */
export class KeyParts {
  private readonly names = new Map<string, Buffer>();
  /** field → value → suffix (a Map tells 1 from '1', as ord does; ord writes -0 as 0, as a Map key it is 0). */
  private readonly suffixes = new Map<string, Map<Scalar, Buffer>>();
  private readonly partitions = new Map<string, Map<string, Buffer>>();

  name(s: string): Buffer {
    let b = this.names.get(s);
    if (b === undefined) this.names.set(s, (b = name(s)));
    return b;
  }

  setSuffix(field: string, value: Scalar): Buffer {
    let byValue = this.suffixes.get(field);
    if (byValue === undefined) this.suffixes.set(field, (byValue = new Map()));
    let b = byValue.get(value);
    if (b === undefined) byValue.set(value, (b = setSuffix(field, value)));
    return b;
  }

  partitionSuffix(field: string, key: string): Buffer {
    let byKey = this.partitions.get(field);
    if (byKey === undefined) this.partitions.set(field, (byKey = new Map()));
    let b = byKey.get(key);
    if (b === undefined) byKey.set(key, (b = partitionSuffix(field, key)));
    return b;
  }
}

/** A key as a SCAN pattern matches it literally. */
export function globEscape(key: Buffer): Buffer {
  const out: number[] = [];
  for (const x of key) {
    if (x === 0x2a || x === 0x3f || x === 0x5b || x === 0x5d || x === 0x5c) out.push(0x5c);
    out.push(x);
  }
  return Buffer.from(out);
}

/** The build lease of staged generation G: `<prefix>gen:building:<G>`. */
export const buildLeaseKey = (prefix: Buffer, generation: number): Buffer =>
  Buffer.concat([prefix, Buffer.from(`gen:building:${generation}`)]);

/** The keys of one read model, under its prefix. */
export class ReadModelKeys {
  readonly prefix: Buffer;
  /** `<prefix>checkpoints`. */
  readonly checkpoints: Buffer;

  constructor(prefix: string) {
    this.prefix = cesu8(prefix);
    this.checkpoints = this.meta('checkpoints');
  }

  /** A key of the read model's own (`<prefix>gen:live`, ...). */
  meta(suffix: string): Buffer {
    return Buffer.concat([this.prefix, Buffer.from(suffix)]);
  }

  /** The prefix of a collection's keys in a generation: `<prefix>c:<name>:` (generation 0), `<prefix>g<G>:c:<name>:`. */
  collection(collection: string, generation: number): Buffer {
    return Buffer.concat([
      this.prefix,
      Buffer.from(generation === 0 ? 'c:' : `g${generation}:c:`),
      name(collection),
      COLON,
    ]);
  }
}
