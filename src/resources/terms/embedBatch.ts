/**
 * The `wp:term` links of an `_embed`ded page (`categories?post=…` and `tags?post=…`, one per post and
 * taxonomy) resolved together instead of one by one: the posts in one getMany, each taxonomy's terms of all
 * the posts in one read-model query (each request then takes its own terms out of that answer, which keeps the
 * query's order, since a subset of a sorted list is sorted the same way), and each term's count once. Every
 * body stays exactly what the request alone would give. One batch serves the sub-requests of one response
 * (RestRequest.shared), so nothing outlives that response.
 */
import type { Site } from '../../site';
import type { Order } from '../../ports/readModel';
import type { ContentDoc } from '../../../projections/content';
import { TERM_COLLECTION } from '../../../projections/terms';
import type { TermDoc } from '../../../projections/terms';
import type { Taxonomy } from './events';
import { taxonomyFilter, termCounts } from './operations';

/** Keys asked for in one turn of the event loop, loaded together on the next. */
class Coalescer<K, V> {
  private waiting = new Map<K, { resolve(value: V): void; reject(error: unknown): void }[]>();

  constructor(private readonly loadAll: (keys: K[]) => Promise<Map<K, V>>) {}

  load(key: K): Promise<V> {
    return new Promise((resolve, reject) => {
      if (this.waiting.size === 0) setImmediate(() => void this.flush());
      const list = this.waiting.get(key);
      if (list) list.push({ resolve, reject });
      else this.waiting.set(key, [{ resolve, reject }]);
    });
  }

  private async flush(): Promise<void> {
    const batch = this.waiting;
    this.waiting = new Map();
    try {
      const loaded = await this.loadAll([...batch.keys()]);
      for (const [key, waiters] of batch) for (const w of waiters) w.resolve(loaded.get(key)!);
    } catch (error) {
      for (const waiters of batch.values()) for (const w of waiters) w.reject(error);
    }
  }
}

interface TermsWanted {
  taxonomy: Taxonomy;
  order: Order;
  ids: readonly number[];
}

export class EmbeddedTermsBatch {
  private readonly posts: Coalescer<number, ContentDoc | null>;
  private readonly postById = new Map<number, Promise<ContentDoc | null>>();
  private readonly countCoalescers = new Map<Taxonomy, Coalescer<number, number>>();
  private readonly countById = new Map<string, Promise<number>>();
  /** Per taxonomy and order: the requests' term ids waiting for one query. */
  private readonly terms = new Map<string, Coalescer<TermsWanted, TermDoc[]>>();

  constructor(private readonly site: Site) {
    this.posts = new Coalescer(async (ids) => {
      // A post first, else a page, as a single request looks the item up.
      const found = new Map<number, ContentDoc | null>();
      let missing = ids;
      for (const type of ['post', 'page']) {
        if (missing.length === 0) break;
        const docs = (await site.readModel.getMany(type, missing)) as (ContentDoc | null)[];
        missing.forEach((id, i) => {
          found.set(id, docs[i] ?? null);
        });
        missing = missing.filter((id) => found.get(id) === null);
      }
      return found;
    });
  }

  /** The content item with this id (a post, else a page), or null. */
  post(id: number): Promise<ContentDoc | null> {
    let found = this.postById.get(id);
    if (!found) this.postById.set(id, (found = this.posts.load(id)));
    return found;
  }

  /** The terms of the taxonomy among `ids`, in `order`: what a query filtering on taxonomy and ids gives. */
  termsAmong(taxonomy: Taxonomy, order: Order, ids: readonly number[]): Promise<TermDoc[]> {
    const key = `${taxonomy} ${JSON.stringify(order)}`;
    let coalescer = this.terms.get(key);
    if (!coalescer) {
      coalescer = new Coalescer(async (wanted) => {
        const union = [...new Set(wanted.flatMap((w) => w.ids))];
        const items =
          union.length === 0
            ? []
            : ((
                await this.site.readModel.query(TERM_COLLECTION, {
                  filters: [taxonomyFilter(taxonomy), { kind: 'any', field: 'id', values: union }],
                  order,
                  offset: 0,
                  limit: null,
                })
              ).items as TermDoc[]);
        return new Map(
          wanted.map((w) => {
            const own = new Set(w.ids);
            return [w, items.filter((doc) => own.has(doc.id))];
          }),
        );
      });
      this.terms.set(key, coalescer);
    }
    return coalescer.load({ taxonomy, order, ids });
  }

  /** termCounts, each term counted once for the whole response. */
  async counts(taxonomy: Taxonomy, ids: readonly number[]): Promise<Map<number, number>> {
    let coalescer = this.countCoalescers.get(taxonomy);
    if (!coalescer) {
      coalescer = new Coalescer((keys) => termCounts(this.site, taxonomy, keys));
      this.countCoalescers.set(taxonomy, coalescer);
    }
    const counted: Promise<readonly [number, number]>[] = [];
    for (const id of ids) {
      const key = `${taxonomy} ${id}`;
      let count = this.countById.get(key);
      if (!count) this.countById.set(key, (count = coalescer.load(id)));
      counted.push(count.then((n) => [id, n] as const));
    }
    return new Map(await Promise.all(counted));
  }
}

/** The batch of this response's embedded requests, made by the first of them; null outside an `_embed`. */
export function embeddedTermsBatch(site: Site, shared: Map<string, unknown> | undefined): EmbeddedTermsBatch | null {
  if (!shared) return null;
  let batch = shared.get('terms:embedded') as EmbeddedTermsBatch | undefined;
  if (!batch) shared.set('terms:embedded', (batch = new EmbeddedTermsBatch(site)));
  return batch;
}
