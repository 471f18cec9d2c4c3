/** The cache of presented items: what it keeps, within its byte bound, and what it gives back. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { contentSchema } from '../../src/resources/content/schema';
import { PresentationCache, presentContent } from '../../src/resources/content/present';
import type { PresentOptions } from '../../src/resources/content/present';
import { serializeBody, serializedLength } from '../../src/rest/serialized';
import type { ContentDoc } from '../../projections/content';
import { contentDoc } from '../support/contentDoc';

const test = suite('presentation cache');

const schema = contentSchema('post');

const doc = (id: number, overrides: Partial<ContentDoc> = {}): ContentDoc => Object.freeze(contentDoc(id, overrides));

const options = (context: PresentOptions['context'] = 'view'): PresentOptions => ({
  context,
  passwordAccepted: true,
  siteUrl: 'https://example.org',
  apiRoot: 'https://example.org/wp-json/',
  timezone: 'UTC',
  restBase: 'core/v2/posts',
  parentPath: '',
});

/** The JSON of one presented item, as the response writes it. */
const json = (item: Record<string, unknown>) => String(serializeBody(item));

/** Bytes of JSON one presented item of `doc(id)` takes (they differ by a few bytes with the id's digits). */
const itemBytes = (id: number) => Buffer.byteLength(JSON.stringify(presentContent(doc(id), schema, options())));

test('a kept item is given back as the same read-only object, with its JSON, and is what presenting gives', () => {
  const cache = new PresentationCache(schema);
  const d = doc(10);
  const first = cache.present(d, options());
  assert.ok(cache.keeps(d));
  assert.is(cache.present(d, options()), first);
  assert.throws(() => (first.title = 'changed'), TypeError);
  assert.throws(() => delete first.title, TypeError);
  assert.ok(Object.isFrozen(first.content));
  assert.is(json(first), JSON.stringify(presentContent(d, schema, options())));
  assert.is(serializedLength(first), Buffer.byteLength(json(first)));
  assert.is(cache.keptBytes, serializedLength(first));
});

test('a kept item (its JSON behind a stand-in) reads, spreads, lists its keys and serialises as the item presented', () => {
  const cache = new PresentationCache(schema);
  const d = doc(13);
  const kept = cache.present(d, options());
  const fresh = presentContent(d, schema, options()) as Record<string, unknown>;
  const plain = JSON.parse(JSON.stringify(fresh)) as Record<string, unknown>;
  assert.is(kept.link, fresh.link);
  assert.is(kept.id, fresh.id);
  assert.equal(kept.title, plain.title);
  assert.equal(kept._links, plain._links);
  assert.equal(Object.keys(kept), Object.keys(plain));
  assert.equal({ ...kept, extra: 1 }, { ...plain, extra: 1 });
  assert.ok('content' in kept);
  assert.not.ok('nothing' in kept);
  assert.is(JSON.stringify({ deleted: true, previous: kept }), JSON.stringify({ deleted: true, previous: fresh }));
  assert.is(JSON.stringify([kept]), `[${json(kept)}]`);
  assert.is(Object.getPrototypeOf(kept), Object.prototype);
  assert.not.ok(Array.isArray(kept));
});

test('each context is its own variant of the document, counted in the bytes kept', () => {
  const cache = new PresentationCache(schema);
  const d = doc(11);
  const view = cache.present(d, options('view'));
  const embed = cache.present(d, options('embed'));
  assert.is.not(view, embed);
  assert.is(json(embed), JSON.stringify(presentContent(d, schema, options('embed'))));
  assert.is(cache.keptBytes, serializedLength(view) + serializedLength(embed));
});

test('a new version of a document (a new object) is presented afresh', () => {
  const cache = new PresentationCache(schema);
  const before = cache.present(doc(12), options());
  const after = cache.present(doc(12, { title: 'Renamed' }), options());
  assert.is.not(after, before);
  assert.is((after.title as { rendered: string }).rendered, 'Renamed');
});

test('the bytes kept stay within the bound; the least recently used documents go first', () => {
  const maxBytes = itemBytes(100) * 3 + 10;
  const cache = new PresentationCache(schema, { maxBytes });
  const docs = [100, 101, 102, 103].map((id) => doc(id));
  for (const d of docs.slice(0, 3)) cache.present(d, options());
  // 100 is used again, so 101 is now the least recently used one.
  cache.present(docs[0]!, options());
  cache.present(docs[3]!, options());
  assert.ok(cache.keptBytes <= maxBytes);
  assert.ok(cache.keeps(docs[0]!));
  assert.not.ok(cache.keeps(docs[1]!));
  assert.ok(cache.keeps(docs[2]!));
  assert.ok(cache.keeps(docs[3]!));
});

test('once it has dropped a document, one is kept only when presented again within the admission window', () => {
  const cache = new PresentationCache(schema, { maxBytes: itemBytes(200) * 2, admissionWindow: 2 });
  const [a, b, c, d, e, f] = [200, 201, 202, 203, 204, 205].map((id) => doc(id));
  cache.present(a!, options());
  cache.present(b!, options());
  // Kept while nothing had to go: c pushes a out.
  cache.present(c!, options());
  assert.ok(cache.keeps(c!));
  assert.not.ok(cache.keeps(a!));
  // From now on a first presentation is not kept (however much room the last eviction left), and gives what a
  // kept item would hold.
  for (const next of [d!, e!]) {
    const once = cache.present(next, options());
    assert.not.ok(cache.keeps(next));
    assert.not.ok(Object.isFrozen(once));
    assert.is(json(once), JSON.stringify(presentContent(next, schema, options())));
  }
  assert.ok(cache.keeps(b!) && cache.keeps(c!));
  // Presented again while remembered: kept (pushing out the least recently used).
  const twice = cache.present(e!, options());
  assert.ok(cache.keeps(e!));
  assert.throws(() => (twice.title = 'changed'), TypeError);
  assert.not.ok(cache.keeps(b!));
  // The window remembers two documents: after d, two others (f, a) push d out of it, so presenting d again is a
  // first presentation again, and only the one after that keeps it.
  cache.present(f!, options());
  cache.present(a!, options());
  cache.present(d!, options());
  assert.not.ok(cache.keeps(d!));
  cache.present(d!, options());
  assert.ok(cache.keeps(d!));
  assert.ok(cache.keptBytes <= itemBytes(200) * 2);
});

test("a document first presented in the edit context (a write's answer) is kept only on its second touch", () => {
  const cache = new PresentationCache(schema);
  const d = doc(400);
  const once = cache.present(d, options('edit'));
  assert.not.ok(cache.keeps(d));
  assert.is(cache.keptBytes, 0);
  assert.is(json(once), JSON.stringify(presentContent(d, schema, options('edit'))));
  const twice = cache.present(d, options('edit'));
  assert.ok(cache.keeps(d));
  assert.is(cache.present(d, options('edit')), twice);
  // A view read of a document not kept is kept at once while the cache has room, and its edit variant then joins it.
  const e = doc(401);
  cache.present(e, options('view'));
  assert.ok(cache.keeps(e));
  const edit = cache.present(e, options('edit'));
  assert.is(cache.present(e, options('edit')), edit);
});

test('an item larger than the whole bound is still given back, and pushes out everything else', () => {
  const big = doc(300, { content: `<p>${'word '.repeat(2000)}</p>` });
  const small = doc(301);
  const cache = new PresentationCache(schema, { maxBytes: itemBytes(301) * 2 });
  cache.present(small, options());
  const item = cache.present(big, options());
  assert.is(json(item), JSON.stringify(presentContent(big, schema, options())));
  assert.ok(cache.keeps(big));
  assert.not.ok(cache.keeps(small));
  assert.is(cache.keptBytes, serializedLength(item));
});

test.run();
