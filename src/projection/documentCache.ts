/**
 * Documents read by id, kept while the read-model version stands (src/projection/readModelVersion.ts), for a read
 * model that lives in another process (Redis): a hit costs no round trip, no reply to decode and no lookup of the
 * stored JSON. It is exact for the same reason the shared response cache is: the version moves on at every change
 * this process makes or settles and at every change another process publishes, and a document is kept only if the
 * version neither moved nor read as changing while it was fetched. So it gives what the read model held at the
 * current version, and the node that wrote reads its write at once (settling moves the version on before the write
 * answers). Another node hears of a write through the projector's notice, as its response cache does.
 *
 * Any change empties it: documents are kept for one version only. Reads under steady writes fall through to the
 * read model, as they did before it.
 */
import type { Doc, DocId, ReadModel } from '../ports/readModel';
import { AdmissionWindow } from '../core/admissionWindow';
import { PerVersion } from './readModelVersion';
import type { ReadModelVersion } from './readModelVersion';
import type { CacheSize } from '../caches/budget';

/** Once full, a document is kept only when read again among the last this many it did not keep. */
const ADMISSION_WINDOW = 8_192;

const keyOf = (collection: string, id: DocId) => `${typeof id === 'number' ? 'n' : 's'}${id}\u0000${collection}`;

/**
 * `readModel` with `get`, `getMany` and `peek` answered from documents fetched at the current version, bounded to `entries`
 * (the site's cache budget, `documents`; 0 keeps none). Oldest out first; once full, a document joins only on its
 * second read within the admission window, so reads at random over a larger site do not churn it. Everything else is
 * the read model's own. `held` tells what it keeps now.
 */
export function cacheDocuments(
  readModel: ReadModel,
  version: ReadModelVersion,
  entries: number,
): { readModel: ReadModel; held(): CacheSize } {
  const memo = new PerVersion<Doc | null>(version);
  const admission = new AdmissionWindow(ADMISSION_WINDOW);

  const keep = (at: number, key: string, doc: Doc | null) => {
    // Moved on (or changing) while fetched: the document may be of either side of the change.
    if (entries === 0 || !memo.keepable(at)) return;
    const map = memo.kept()!;
    if (map.size >= entries) {
      if (!admission.admits(key)) return;
      map.delete(map.keys().next().value!);
    }
    map.set(key, doc);
  };

  /** A document kept at the current version, at once; undefined when not kept (or while a change is applied). */
  const peek = (collection: string, id: DocId): Doc | null | undefined => memo.kept()?.get(keyOf(collection, id));

  const get = async (collection: string, id: DocId): Promise<Doc | null> => {
    const key = keyOf(collection, id);
    const found = memo.kept()?.get(key);
    if (found !== undefined) return found;
    const at = version.current();
    const doc = await readModel.get(collection, id);
    keep(at, key, doc);
    return doc;
  };

  const getMany = async (collection: string, ids: readonly DocId[]): Promise<(Doc | null)[]> => {
    const map = memo.kept();
    const keys = ids.map((id) => keyOf(collection, id));
    const found = keys.map((key) => map?.get(key));
    const missing = ids.filter((_, i) => found[i] === undefined);
    if (missing.length === 0) return found as (Doc | null)[];
    const at = version.current();
    const fetched = await readModel.getMany(collection, missing);
    let next = 0;
    return found.map((doc, i) => {
      if (doc !== undefined) return doc;
      const fresh = fetched[next++] ?? null;
      keep(at, keys[i]!, fresh);
      return fresh;
    });
  };

  const bound = new Map<PropertyKey, unknown>([
    ['get', get],
    ['getMany', getMany],
  ]);
  const cached = new Proxy(readModel, {
    get(target, property) {
      // Its own first: `peek` is this cache's, whether or not the read model has one.
      if (property === 'peek') return peek;
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      let method = bound.get(property);
      if (method === undefined) bound.set(property, (method = (value as (...args: unknown[]) => unknown).bind(target)));
      return method;
    },
  });
  return { readModel: cached, held: () => ({ entries: memo.kept()?.size ?? 0 }) };
}
