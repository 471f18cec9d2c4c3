/**
 * The two dialects of the API (src/http/dialect.ts), black-box: the same routes answer under `/wp-json/` and at
 * `?rest_route=/wp/v2/…` in WordPress's names (`wp/v2`, `wp-site-health/v1`, …), and every URL and name in such an
 * answer is WordPress's (index, namespace index, `_links`, `Link`, `Location`, batch, `_embed`, `_envelope`,
 * OPTIONS), while text that merely mentions an API URL is left as written. The core dialect at `/` answers as
 * before, the shared response cache keeps the two apart, and API_DIALECT decides the advertised root.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';

/** Every `href` anywhere in a JSON value. */
function hrefsOf(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) hrefsOf(item, out);
  else if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (key === 'href' && typeof inner === 'string') out.push(inner);
      else hrefsOf(inner, out);
    }
  }
  return out;
}

const wp = suite('the wordpress dialect');
let t: TestSite;
let admin: TestUser;
let post: { id: number };
/** Where the wordpress dialect lives, and where the core one does. */
let wpRoot: string;
let coreRoot: string;
/** A content that names API URLs of both dialects, as text and as a link. */
let mentioning: string;

/** Every API link of an answer is under /wp-json/ in WordPress's names; none is in the interface's names. */
function assertWordPressHrefs(body: unknown, what: string): void {
  const hrefs = hrefsOf(body).filter((href) => href.startsWith(t.url));
  assert.ok(hrefs.length > 0, `${what}: has links`);
  for (const href of hrefs) {
    assert.ok(href.startsWith(wpRoot), `${what}: ${href}`);
    assert.not.match(href, /\/core\/v2|\/site-health\/v1|\/block-editor\/v1/, `${what}: ${href}`);
  }
}

wp.before(async () => {
  t = await startTestSite();
  wpRoot = `${t.url}/wp-json/`;
  coreRoot = `${t.url}/`;
  admin = await t.createUser('admin', 'administrator');
  mentioning = `<p>The list is at ${t.url}/core/v2/posts and <a href="${t.url}/core/v2/posts/1">one</a>, "href":"${t.url}/core/v2/x"</p>`;
  for (const title of ['First', 'Second', 'Third']) {
    const created = await t.request('POST', '/core/v2/posts', {
      as: admin,
      body: { title, content: mentioning, status: 'publish' },
    });
    assert.is(created.status, 201, created.text);
    post = created.body;
  }
});
wp.after(() => t.close());

wp(
  'the index at /wp-json/ lists WordPress names, its routes and links under /wp-json/, the site URLs as they are',
  async () => {
    for (const path of ['/wp-json/', '/wp-json']) {
      const index = await t.request('GET', path);
      assert.is(index.status, 200, path);
      const body = index.body;
      assert.is(body.url, t.url);
      assert.is(body.home, t.url);
      assert.ok(body.namespaces.includes('wp/v2'), body.namespaces.join());
      assert.ok(body.namespaces.includes('oembed/1.0'));
      assert.ok(
        body.namespaces.includes('wp-site-health/v1') && body.namespaces.includes('wp-block-editor/v1'),
        body.namespaces.join(),
      );
      assert.not.ok(
        body.namespaces.some((name: string) => ['core/v2', 'site-health/v1', 'block-editor/v1'].includes(name)),
      );
      assert.ok(body.routes['/wp/v2/posts'], 'route key in WordPress names');
      assert.is(body.routes['/core/v2/posts'], undefined);
      assert.is(body.routes['/wp/v2/posts'].namespace, 'wp/v2');
      assert.is(body.routes['/batch/v1'] !== undefined, true);
      assert.equal(body.routes['/']._links.self, [{ href: wpRoot }]);
      assert.equal(body.routes['/wp/v2/posts']._links.self, [{ href: `${wpRoot}wp/v2/posts` }]);
      assertWordPressHrefs(body.routes, path);
    }
  },
);

wp('a namespace index in WordPress names', async () => {
  const index = await t.request('GET', '/wp-json/wp/v2');
  assert.is(index.status, 200);
  assert.is(index.body.namespace, 'wp/v2');
  assert.ok(
    Object.keys(index.body.routes).every((key) => key.startsWith('/wp/v2')),
    Object.keys(index.body.routes).join(),
  );
  assert.equal(index.body._links.up, [{ href: wpRoot }]);
  assert.is((await t.request('GET', '/wp-json/core/v2')).status, 404);
});

wp('a list: items linked under /wp-json/, pagination Link headers in WordPress names', async () => {
  const first = await t.request('GET', '/wp-json/wp/v2/posts?per_page=1');
  assert.is(first.status, 200);
  assert.is(first.headers.get('x-wp-total'), '3');
  assert.is(first.headers.get('link'), `<${wpRoot}wp/v2/posts?per_page=1&page=2>; rel="next"`);
  const middle = await t.request('GET', '/wp-json/wp/v2/posts?per_page=1&page=2');
  assert.is(
    middle.headers.get('link'),
    `<${wpRoot}wp/v2/posts?per_page=1&page=1>; rel="prev", <${wpRoot}wp/v2/posts?per_page=1&page=3>; rel="next"`,
  );
  assertWordPressHrefs(first.body, 'list');
});

wp("a single item's _links in WordPress names; its content names API URLs as written", async () => {
  const item = await t.request('GET', `/wp-json/wp/v2/posts/${post.id}?context=edit`, { as: admin });
  assert.is(item.status, 200);
  assert.equal(item.body._links.self, [{ href: `${wpRoot}wp/v2/posts/${post.id}` }]);
  assert.equal(item.body._links.collection, [{ href: `${wpRoot}wp/v2/posts` }]);
  assert.equal(item.body._links.about, [{ href: `${wpRoot}wp/v2/types/post` }]);
  assert.equal(item.body._links.author, [{ embeddable: true, href: `${wpRoot}wp/v2/users/${admin.id}` }]);
  assertWordPressHrefs(item.body, 'item');
  assert.is(item.body.content.raw, mentioning);
  assert.ok(item.body.content.rendered.includes(`${t.url}/core/v2/posts/1`), item.body.content.rendered);
  assert.ok(item.body.link.startsWith(`${t.url}/?p=`) || item.body.link.startsWith(t.url), item.body.link);
  // The same item read anonymously (answered from the presentation cache's JSON).
  const anonymous = await t.request('GET', `/wp-json/wp/v2/posts/${post.id}`);
  assert.equal(anonymous.body._links.self, [{ href: `${wpRoot}wp/v2/posts/${post.id}` }]);
  assert.ok(anonymous.body.content.rendered.includes(`${t.url}/core/v2/posts/1`));
});

wp('a create answers 201 with its Location and links in WordPress names', async () => {
  const created = await t.request('POST', '/wp-json/wp/v2/posts', {
    as: admin,
    body: { title: 'Made here', content: mentioning },
  });
  assert.is(created.status, 201, created.text);
  assert.is(created.headers.get('location'), `${wpRoot}wp/v2/posts/${created.body.id}`);
  assertWordPressHrefs(created.body, 'created');
  assert.is(created.body.content.raw, mentioning);
  const tag = await t.request('POST', '/wp-json/wp/v2/tags', { as: admin, body: { name: 'Via WordPress names' } });
  assert.is(tag.headers.get('location'), `${wpRoot}wp/v2/tags/${tag.body.id}`);
});

wp(
  'a batch asked in WordPress names takes /wp/v2/ sub-paths and answers with them; the interface names route nowhere there',
  async () => {
    const batch = await t.request('POST', '/wp-json/batch/v1', {
      as: admin,
      body: {
        requests: [
          { path: '/wp/v2/posts', body: { title: 'Batched' } },
          { method: 'PUT', path: `/wp/v2/posts/${post.id}`, body: { excerpt: 'Batched excerpt' } },
          { path: '/core/v2/posts', body: { title: 'Not here' } },
        ],
      },
    });
    assert.is(batch.status, 207, batch.text);
    const [created, updated, elsewhere] = batch.body.responses;
    assert.is(created.status, 201);
    assert.is(created.headers.Location, `${wpRoot}wp/v2/posts/${created.body.id}`);
    assertWordPressHrefs(created.body, 'batch create');
    assert.is(updated.status, 200);
    assertWordPressHrefs(updated.body, 'batch update');
    assert.is(elsewhere.status, 404);
    assert.is(elsewhere.body.code, 'rest_no_route');
    // The core dialect's batch is as it was: its own names, not WordPress's.
    const core = await t.request('POST', '/batch/v1', {
      as: admin,
      body: {
        requests: [
          { path: '/wp/v2/posts', body: { title: 'No' } },
          { path: '/core/v2/posts', body: { title: 'Yes' } },
        ],
      },
    });
    assert.is(core.body.responses[0].body.code, 'rest_no_route');
    assert.is(core.body.responses[1].headers.Location, `${coreRoot}core/v2/posts/${core.body.responses[1].body.id}`);
  },
);

wp('_embed: embedded items and their links in WordPress names', async () => {
  const list = await t.request('GET', '/wp-json/wp/v2/posts?_embed&per_page=2');
  assert.is(list.status, 200);
  const author = list.body[0]._embedded.author[0];
  assert.is(author.id, admin.id);
  assert.equal(author._links.self, [{ href: `${wpRoot}wp/v2/users/${admin.id}` }]);
  assertWordPressHrefs(list.body, '_embed');
});

wp('_envelope: the enveloped Link header in WordPress names', async () => {
  const enveloped = await t.request('GET', '/wp-json/wp/v2/posts?per_page=1&_envelope');
  assert.is(enveloped.status, 200);
  assert.is(enveloped.body.headers.Link, `<${wpRoot}wp/v2/posts?per_page=1&_envelope&page=2>; rel="next"`);
  assertWordPressHrefs(enveloped.body.body, 'envelope');
});

wp('OPTIONS: the route described in WordPress names, its schema links included', async () => {
  const options = await t.request('OPTIONS', '/wp-json/wp/v2/posts');
  assert.is(options.status, 200);
  assert.is(options.body.namespace, 'wp/v2');
  assertWordPressHrefs(options.body, 'OPTIONS');
});

wp(
  '?rest_route=/wp/v2/… on the site root is the wordpress dialect; ?rest_route=/core/v2/… stays the core one',
  async () => {
    const list = await t.request('GET', '/?rest_route=/wp/v2/posts&per_page=1');
    assert.is(list.status, 200);
    assert.is(list.headers.get('x-wp-total'), '3');
    assert.is(
      list.headers.get('link'),
      `<${wpRoot}wp/v2/posts?rest_route=%2Fwp%2Fv2%2Fposts&per_page=1&page=2>; rel="next"`,
    );
    assertWordPressHrefs(list.body, 'rest_route list');
    const item = await t.request('GET', `/?rest_route=/wp/v2/posts/${post.id}`);
    assert.equal(item.body._links.self, [{ href: `${wpRoot}wp/v2/posts/${post.id}` }]);
    const core = await t.request('GET', `/?rest_route=/core/v2/posts/${post.id}`);
    assert.equal(core.body._links.self, [{ href: `${coreRoot}core/v2/posts/${post.id}` }]);
  },
);

wp('the core dialect at / answers as before: its own names, and WordPress names route nowhere there', async () => {
  const item = await t.request('GET', `/core/v2/posts/${post.id}`);
  assert.equal(item.body._links.self, [{ href: `${coreRoot}core/v2/posts/${post.id}` }]);
  assert.ok(
    hrefsOf(item.body)
      .filter((href) => href.startsWith(t.url))
      .every((href) => !href.includes('/wp-json/')),
  );
  const index = await t.request('GET', '/');
  assert.ok(index.body.namespaces.includes('core/v2'));
  assert.ok(index.body.routes['/core/v2/posts']);
  assert.is((await t.request('GET', '/wp/v2/posts')).status, 404);
  assert.is((await t.request('GET', '/wp-json/core/v2/posts')).body.code, 'rest_no_route');
  assert.is((await t.request('GET', '/wp-jsonx/wp/v2/posts')).status, 404);
});

wp('the shared response cache keeps each dialect its own answer', async () => {
  const paths = [`/core/v2/posts/${post.id}`, `/wp-json/wp/v2/posts/${post.id}`];
  for (let round = 0; round < 2; round++) {
    const [core, wordpress] = [await t.request('GET', paths[0]!), await t.request('GET', paths[1]!)];
    assert.equal(core.body._links.self, [{ href: `${coreRoot}core/v2/posts/${post.id}` }], `round ${round}`);
    assert.equal(wordpress.body._links.self, [{ href: `${wpRoot}wp/v2/posts/${post.id}` }], `round ${round}`);
  }
});

wp(
  'post types and taxonomies name their namespace as WordPress does, so clients build wp/v2 URLs from them',
  async () => {
    const type = await t.request('GET', '/wp-json/wp/v2/types/post');
    assert.is(type.status, 200, type.text);
    assert.is(type.body.rest_namespace, 'wp/v2');
    const taxonomies = await t.request('GET', '/wp-json/wp/v2/taxonomies');
    assert.is(taxonomies.body.category.rest_namespace, 'wp/v2');
    const types = await t.request('GET', '/wp-json/wp/v2/types?context=edit', { as: admin });
    for (const described of Object.values<any>(types.body))
      assert.is(described.rest_namespace, 'wp/v2', described.slug);
    // The interface's own root keeps its names.
    assert.is((await t.request('GET', '/core/v2/types/post')).body.rest_namespace, 'core/v2');
  },
);

wp.run();

const advertised = suite('API_DIALECT: the advertised root');

advertised(
  'core (the default) advertises the site root; wordpress advertises /wp-json/, on every API answer in either dialect',
  async () => {
    for (const [dialect, root] of [
      [undefined, '/'],
      ['core', '/'],
      ['wordpress', '/wp-json/'],
    ] as const) {
      const site = await startTestSite({ apiDialect: dialect });
      try {
        const expected = `<${site.url}${root}>; rel="https://api.w.org/"`;
        for (const [method, path] of [
          ['GET', '/'],
          ['HEAD', '/'],
          ['GET', '/wp-json/'],
          ['GET', '/core/v2/posts/999'],
          ['GET', '/wp-json/wp/v2/posts/999'],
          ['GET', '/no/route'],
        ]) {
          const response = await site.request(method!, path!);
          assert.is(response.headers.get('link'), expected, `${dialect} ${method} ${path}`);
        }
      } finally {
        await site.close();
      }
    }
  },
);

advertised('?rest_route= in names both dialects share follows the advertised one', async () => {
  const site = await startTestSite({ apiDialect: 'wordpress' });
  try {
    const index = await site.request('GET', '/?rest_route=/');
    assert.ok(index.body.namespaces.includes('wp/v2'), index.body.namespaces.join());
  } finally {
    await site.close();
  }
});

advertised('a site under a path serves the wordpress dialect under its own /wp-json/', async () => {
  // Links are built from the site URL; requests reach the test server at its root, so the path is asked for explicitly.
  const site = await startTestSite({ siteUrl: 'http://example.test/blog' });
  try {
    const admin = await site.createUser('admin', 'administrator');
    const created = await site.request('POST', '/blog/wp-json/wp/v2/posts', {
      as: admin,
      body: { title: 'Under a path' },
    });
    assert.is(created.status, 201, created.text);
    assert.is(created.headers.get('location'), `http://example.test/blog/wp-json/wp/v2/posts/${created.body.id}`);
    assert.is(
      (await site.request('GET', `/blog/core/v2/posts/${created.body.id}`, { as: admin })).body._links.self[0].href,
      `http://example.test/blog/core/v2/posts/${created.body.id}`,
    );
  } finally {
    await site.close();
  }
});

advertised.run();

const slashes = suite('repeated slashes at the ends of the path');

slashes(
  'count as one, as WordPress trims them: a site URL configured with a trailing slash still reaches the API',
  async () => {
    const site = await startTestSite({ apiDialect: 'wordpress' });
    try {
      const admin = await site.createUser('admin', 'administrator');
      // A client that joins `SITE_URL/` and `/wp-json/…` writes and reads through the doubled slash.
      const created = await site.request('POST', '//wp-json/wp/v2/posts', {
        as: admin,
        body: { title: 'Doubled', status: 'publish' },
      });
      assert.is(created.status, 201, created.text);
      assert.is(created.headers.get('location'), `${site.url}/wp-json/wp/v2/posts/${created.body.id}`);
      const id = created.body.id;
      for (const path of [
        '//wp-json/wp/v2/posts',
        '///wp-json/wp/v2/posts',
        '/wp-json/wp/v2/posts//',
        `//wp-json/wp/v2/posts/${id}//`,
        '//?rest_route=/wp/v2/posts',
        '//core/v2/posts',
        '/core/v2/posts///',
      ]) {
        const response = await site.request('GET', path);
        assert.is(response.status, 200, `${path}: ${response.text}`);
        const items = Array.isArray(response.body) ? response.body : [response.body];
        assert.equal(
          items.map((item: any) => item.title.rendered),
          ['Doubled'],
          path,
        );
      }
      for (const path of ['//wp-json', '//wp-json/', '//']) {
        const index = await site.request('GET', path);
        assert.is(index.status, 200, path);
        assert.is(index.body.name, 'Test site', path);
      }
      assert.ok((await site.request('GET', '//wp-json')).body.namespaces.includes('wp/v2'));
    } finally {
      await site.close();
    }
  },
);

slashes('inside a route path they route nowhere, as in WordPress', async () => {
  const site = await startTestSite({ apiDialect: 'wordpress' });
  try {
    for (const path of [
      '/wp-json//wp/v2/posts',
      '/wp-json/wp//v2/posts',
      '/wp-json/wp/v2//posts',
      '/wp-json/wp/v2/posts//1',
      '/?rest_route=//wp/v2/posts',
      '/core//v2/posts',
    ]) {
      const response = await site.request('GET', path);
      assert.is(response.status, 404, path);
      assert.is(response.body.code, 'rest_no_route', path);
    }
  } finally {
    await site.close();
  }
});

slashes('a site under a path: repeated slashes before and after its path count as one', async () => {
  const site = await startTestSite({ siteUrl: 'http://example.test/blog' });
  try {
    for (const path of ['/blog//wp-json/wp/v2/posts', '//blog/wp-json/wp/v2/posts', '//blog///core/v2/posts//']) {
      const response = await site.request('GET', path);
      assert.is(response.status, 200, `${path}: ${response.text}`);
      assert.equal(response.body, [], path);
    }
  } finally {
    await site.close();
  }
});

slashes.run();
