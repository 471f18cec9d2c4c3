/**
 * The keys of a collection in a generation (`<prefix>c:<name>:…` for generation 0, `<prefix>g<G>:c:<name>:…` after a
 * rebuild; see readModel.ts), told apart and deleted.
 *
 * Deleting them takes a SCAN, which walks the server's whole keyspace whatever its pattern matches: every collection
 * of every generation, and every other site sharing the server. A rebuild of every projection used to walk it twice
 * per collection (clearing each staged generation, deleting each retired one: ~5,500 SCAN calls and 3.7 s of Redis's
 * CPU at 100,000 posts, a quarter of the rebuild's), so deletions are made in passes: a pass walks the keyspace once
 * for every deletion waiting when it starts, and deletions asked for while it runs wait for the next one.
 */
import type { Redis } from 'ioredis';

const COLON = 0x3a;

/** The generation and escaped collection name of a collection key (`c:<name>:…` or `g<G>:c:<name>:…` after the prefix); null for any other key. */
export function generationOfKey(key: Buffer, prefix: Buffer): { generation: number; collection: string } | null {
  if (key.length <= prefix.length || !key.subarray(0, prefix.length).equals(prefix)) return null;
  let at = prefix.length;
  let generation = 0;
  if (key[at] === 0x67 /* g */) {
    let end = at + 1;
    while (end < key.length && key[end]! >= 0x30 && key[end]! <= 0x39) end++;
    if (end === at + 1 || key[end] !== COLON) return null;
    generation = Number(key.subarray(at + 1, end).toString('latin1'));
    // A generation number is written without leading zeros; anything else is not one of ours.
    if (
      !Number.isSafeInteger(generation) ||
      generation === 0 ||
      key.subarray(at + 1, end).toString('latin1') !== String(generation)
    )
      return null;
    at = end + 1;
  }
  if (key[at] !== 0x63 /* c */ || key[at + 1] !== COLON) return null;
  const nameEnd = key.indexOf(COLON, at + 2);
  if (nameEnd === -1) return null;
  return { generation, collection: key.subarray(at + 2, nameEnd).toString('latin1') };
}

/** A collection in a generation; `collection` is its name as its keys spell it (escaped), read as latin1. */
export interface CollectionGeneration {
  collection: string;
  generation: number;
}

interface Waiting {
  targets: readonly CollectionGeneration[];
  resolve(): void;
  reject(error: unknown): void;
}

export class GenerationKeyDeleter {
  private waiting: Waiting[] = [];
  private running = false;

  /**
   * `prefix`: the read model's key prefix; `prefixGlob`: the same, escaped for a SCAN pattern. Pages of `count` keys
   * are walked and unlinked one at a time.
   */
  constructor(
    private readonly redis: Redis,
    private readonly prefix: Buffer,
    private readonly prefixGlob: Buffer,
    private readonly count = 1000,
  ) {}

  /** Deletes every key of the collections in their generations, in the next pass; rejects when that pass fails. */
  delete(targets: readonly CollectionGeneration[]): Promise<void> {
    if (targets.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.waiting.push({ targets, resolve, reject });
      // Deletions asked for in the same turn share the first pass too.
      if (!this.running) {
        this.running = true;
        queueMicrotask(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    while (this.waiting.length > 0) {
      const pass = this.waiting;
      this.waiting = [];
      try {
        await this.pass(pass.flatMap((waiting) => waiting.targets));
        for (const waiting of pass) waiting.resolve();
      } catch (error) {
        for (const waiting of pass) waiting.reject(error);
      }
    }
    this.running = false;
  }

  private async pass(targets: readonly CollectionGeneration[]): Promise<void> {
    const doomed = new Map<number, Set<string>>();
    for (const { collection, generation } of targets) {
      let collections = doomed.get(generation);
      if (collections === undefined) doomed.set(generation, (collections = new Set()));
      collections.add(collection);
    }
    // One generation: the pattern narrows the replies to its keys (SCAN walks the same keyspace either way).
    const only = doomed.size === 1 ? [...doomed.keys()][0]! : null;
    const pattern = Buffer.concat([
      this.prefixGlob,
      Buffer.from(only === null ? '*' : only === 0 ? 'c:*' : `g${only}:c:*`),
    ]);
    let cursor = '0';
    do {
      const [next, keys] = await this.redis.scanBuffer(
        cursor,
        'MATCH',
        pattern as unknown as string,
        'COUNT',
        this.count,
      );
      cursor = next.toString();
      const gone = keys.filter((key) => {
        const parsed = generationOfKey(key, this.prefix);
        return parsed !== null && doomed.get(parsed.generation)?.has(parsed.collection) === true;
      });
      if (gone.length > 0) await this.redis.unlink(...(gone as unknown as string[]));
    } while (cursor !== '0');
  }
}
