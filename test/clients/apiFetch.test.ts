/**
 * The block editor's HTTP client, unchanged, against palimpsest alone on loopback: `@wordpress/api-fetch` with its
 * default middlewares (the `wp/v2` namespace, `_locale=user`, PUT/PATCH/DELETE sent as POST with
 * `X-HTTP-Method-Override`, and `per_page=-1` fetched page by page through the `Link` header), its root URL set to
 * `SITE/wp-json/` as for a WordPress site, and an application password over Basic auth.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import apiFetch from '@wordpress/api-fetch';
import type { APIFetchMiddleware } from '@wordpress/api-fetch';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';

const client = suite('@wordpress/api-fetch, unchanged');
let t: TestSite;
let admin: TestUser;
/** Every request api-fetch put on the wire: its method, URL and method-override header. */
const sent: { method: string; url: string; override: string | undefined }[] = [];
const nodeFetch = globalThis.fetch;
const root: APIFetchMiddleware = (options, next) =>
  apiFetch.createRootURLMiddleware(`${t.url}/wp-json/`)(options, next);
const credentials: APIFetchMiddleware = (options, next) =>
  next({ ...options, headers: { ...options.headers, Authorization: admin.auth } });

client.before(async () => {
  t = await startTestSite({ apiDialect: 'wordpress' });
  admin = await t.createUser('editor', 'administrator');
  for (let i = 1; i <= 3; i++)
    await t.request('POST', '/core/v2/posts', { as: admin, body: { title: `Post ${i}`, status: 'publish' } });
  // api-fetch calls the global fetch: node's own, wrapped to record what goes on the wire.
  globalThis.fetch = (url: string | URL | Request, init: RequestInit = {}) => {
    const headers = (init.headers ?? {}) as Record<string, string>;
    sent.push({ method: init.method ?? 'GET', url: String(url), override: headers['X-HTTP-Method-Override'] });
    return nodeFetch(url, init);
  };
  apiFetch.use(root);
  apiFetch.use(credentials);
});
client.after(async () => {
  // api-fetch's middlewares are process-wide: later test files configure their own.
  apiFetch.unregister(root);
  apiFetch.unregister(credentials);
  globalThis.fetch = nodeFetch;
  await t.close();
});

client('lists with its paging headers, and fetches every page for per_page=-1', async () => {
  const response = (await apiFetch({ path: '/wp/v2/posts?per_page=2', parse: false })) as Response;
  assert.is(response.status, 200);
  assert.is(response.headers.get('X-WP-Total'), '3');
  assert.is(response.headers.get('X-WP-TotalPages'), '2');
  const page = (await response.json()) as { title: { rendered: string } }[];
  assert.is(page.length, 2);
  // Its fetchAll middleware asks for 100 at a time and follows the Link header's next page.
  const all = (await apiFetch({ path: '/wp/v2/posts?per_page=-1&_fields=id,title' })) as { id: number }[];
  assert.is(all.length, 3);
});

client('creates, updates with the method override, and deletes', async () => {
  const created = (await apiFetch({
    path: '/wp/v2/posts',
    method: 'POST',
    data: { title: 'From api-fetch', status: 'draft' },
  })) as { id: number; title: { raw: string }; status: string };
  assert.is(created.title.raw, 'From api-fetch');
  assert.is(created.status, 'draft');
  const updated = (await apiFetch({
    path: `/wp/v2/posts/${created.id}`,
    method: 'PUT',
    data: { title: 'Renamed' },
  })) as { title: { raw: string } };
  assert.is(updated.title.raw, 'Renamed');
  // api-fetch sent the update as a POST with the override header, and asked for the user's locale.
  const update = sent.find((request) => request.override === 'PUT');
  assert.ok(update, JSON.stringify(sent));
  assert.is(update!.method, 'POST');
  assert.match(update!.url, new RegExp(`/wp-json/wp/v2/posts/${created.id}\\?_locale=user$`));
  const deleted = (await apiFetch({ path: `/wp/v2/posts/${created.id}?force=true`, method: 'DELETE' })) as {
    deleted: boolean;
  };
  assert.is(deleted.deleted, true);
  const gone = await t.request('GET', `/core/v2/posts/${created.id}`, { as: admin });
  assert.is(gone.status, 404);
});

client('errors reach the caller as WordPress errors', async () => {
  try {
    await apiFetch({ path: '/wp/v2/posts/999999' });
    assert.unreachable('a missing post must reject');
  } catch (error) {
    assert.is((error as { code?: string }).code, 'rest_post_invalid_id');
  }
});

client.run();
