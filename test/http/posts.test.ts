/**
 * The posts routes over HTTP, black-box, as WordPress 6.1 answers them (wp/v2 renamed core/v2): create, read
 * (contexts, `_fields`, `_envelope`, HEAD, headers, password protection), list (pagination, ordering,
 * filters), update and delete. The pipeline's errors are in posts-errors.test.ts.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestResponse, TestSite, TestUser } from '../support/testSite';

const VIEW_KEYS = [
  '_links',
  'author',
  'categories',
  'comment_status',
  'content',
  'date',
  'date_gmt',
  'excerpt',
  'featured_media',
  'format',
  'guid',
  'id',
  'link',
  'meta',
  'modified',
  'modified_gmt',
  'ping_status',
  'slug',
  'status',
  'sticky',
  'tags',
  'template',
  'title',
  'type',
];
const EDIT_KEYS = [...VIEW_KEYS, 'generated_slug', 'password', 'permalink_template'];
const EMBED_KEYS = ['_links', 'author', 'date', 'excerpt', 'featured_media', 'id', 'link', 'slug', 'title', 'type'];

const keys = (value: object) => Object.keys(value).sort();
const ids = (response: TestResponse) => (response.body as { id: number }[]).map((item) => item.id);

async function create(t: TestSite, as: TestUser, body: Record<string, unknown>): Promise<any> {
  const response = await t.request('POST', '/core/v2/posts', { as, body });
  assert.is(response.status, 201, response.text);
  return response.body;
}

// ---------------------------------------------------------------------------------------------------------------

const creating = suite('posts: create');
let c: TestSite;
let admin: TestUser;

creating.before(async () => {
  // New York: UTC-5 in December, UTC-4 in summer. The clock reads 2024-05-01 12:00 UTC (08:00 local).
  c = await startTestSite({ timezone: 'America/New_York' });
  admin = await c.createUser('admin', 'administrator');
});
creating.after(async () => c.close());

creating('201 with Location and the new post in edit context, a draft by default', async () => {
  const response = await c.request('POST', '/core/v2/posts', {
    as: admin,
    body: { title: 'Hello World', content: 'Some words', excerpt: 'Short' },
  });
  assert.is(response.status, 201);
  const post = response.body;
  assert.is(response.headers.get('location'), `${c.url}/core/v2/posts/${post.id}`);
  assert.equal(keys(post), EDIT_KEYS.sort());
  assert.is(post.status, 'draft');
  assert.is(post.type, 'post');
  assert.is(post.author, admin.id);
  assert.equal(post.title, { raw: 'Hello World', rendered: 'Hello World' });
  assert.is(post.content.raw, 'Some words');
  assert.is(post.excerpt.raw, 'Short');
  assert.is(post.password, '');
  assert.is(post.comment_status, 'open');
  assert.is(post.ping_status, 'open');
  assert.is(post.format, 'standard');
  assert.is(post.sticky, false);
  assert.is(post.date, '2024-05-01T08:00:00');
  assert.is(post.date_gmt, '2024-05-01T12:00:00');
});

creating('a draft without a slug keeps slug "" and shows the would-be slug as generated_slug', async () => {
  const post = await create(c, admin, { title: 'Not Yet Out' });
  assert.is(post.slug, '');
  assert.is(post.generated_slug, 'not-yet-out');
  assert.is(post.link, `${c.url}/?p=${post.id}`);
});

creating('a published post gets its slug from the title', async () => {
  const post = await create(c, admin, { title: 'My First Post!', status: 'publish' });
  assert.is(post.status, 'publish');
  assert.is(post.slug, 'my-first-post');
  assert.is(post.generated_slug, 'my-first-post');
  assert.is(post.link, `${c.url}/my-first-post/`);
});

creating('an explicit slug is sanitized: lower case, accents transliterated', async () => {
  const post = await create(c, admin, { title: 'Accents', slug: 'tęst-acceńted-chäræcters', status: 'publish' });
  assert.is(post.slug, 'test-accented-charaecters');
});

creating('an explicit slug is made unique, on a draft as on a published post', async () => {
  const first = await create(c, admin, { title: 'One', slug: 'sample-slug', status: 'publish' });
  const draft = await create(c, admin, { title: 'Two', slug: 'sample-slug' });
  const third = await create(c, admin, { title: 'Sample Slug', status: 'publish' });
  assert.is(first.slug, 'sample-slug');
  assert.is(draft.status, 'draft');
  assert.is(draft.slug, 'sample-slug-2');
  assert.is(third.slug, 'sample-slug-3');
});

creating('title, content and excerpt accept a string or {raw}', async () => {
  const plain = await create(c, admin, { title: 'T', content: 'C', excerpt: 'E' });
  const raw = await create(c, admin, { title: { raw: 'T' }, content: { raw: 'C' }, excerpt: { raw: 'E' } });
  for (const field of ['title', 'content', 'excerpt']) assert.equal(raw[field], plain[field], field);
  assert.equal(raw.title, { raw: 'T', rendered: 'T' });
  assert.is(raw.content.rendered, '<p>C</p>\n');
});

creating('a form-encoded body works like JSON', async () => {
  const response = await c.request('POST', '/core/v2/posts', {
    as: admin,
    form: { title: 'Form Post', content: 'From a form', status: 'publish', sticky: 'true', comment_status: 'closed' },
  });
  assert.is(response.status, 201, response.text);
  assert.is(response.body.title.raw, 'Form Post');
  assert.is(response.body.content.raw, 'From a form');
  assert.is(response.body.status, 'publish');
  assert.is(response.body.sticky, true);
  assert.is(response.body.comment_status, 'closed');
  assert.is(response.body.slug, 'form-post');
});

creating('read-only fields in the body are ignored without error', async () => {
  const post = await create(c, admin, {
    title: 'Read Only',
    status: 'publish',
    modified: '2000-01-01T00:00:00',
    modified_gmt: '2000-01-01T00:00:00',
    guid: 'http://elsewhere.test/?p=1',
    link: 'http://elsewhere.test/',
    type: 'page',
    generated_slug: 'nope',
    permalink_template: 'nope',
  });
  assert.is(post.type, 'post');
  assert.is(post.modified, '2024-05-01T08:00:00');
  assert.is(post.modified_gmt, '2024-05-01T12:00:00');
  // The guid is the permalink at creation (checked on the reference), never what the client sends.
  assert.is(post.guid.raw, `${c.url}/read-only/`);
  assert.is(post.link, `${c.url}/read-only/`);
  assert.is(post.generated_slug, 'read-only');
});

creating('dates: `date` is site-local, `date_gmt` UTC, and offsets are converted', async () => {
  const expect = { date: '2016-12-12T14:00:00', date_gmt: '2016-12-12T19:00:00' };
  const inputs: Record<string, string>[] = [
    { date: '2016-12-12T14:00:00' },
    { date_gmt: '2016-12-12T19:00:00' },
    { date: '2016-12-12T18:00:00-01:00' },
    { date: '2016-12-12T19:00:00Z' },
    // Both given: `date` wins.
    { date: '2016-12-12T14:00:00', date_gmt: '2017-06-01T00:00:00' },
  ];
  for (const input of inputs) {
    const post = await create(c, admin, { title: 'Dated', status: 'publish', ...input });
    assert.is(post.date, expect.date, JSON.stringify(input));
    assert.is(post.date_gmt, expect.date_gmt, JSON.stringify(input));
    // A post created with an explicit date is modified "then".
    assert.is(post.modified, expect.date, JSON.stringify(input));
    assert.is(post.modified_gmt, expect.date_gmt, JSON.stringify(input));
  }
  const summer = await create(c, admin, { title: 'Summer', status: 'publish', date: '2016-07-01T12:00:00' });
  assert.is(summer.date_gmt, '2016-07-01T16:00:00');
});

creating(
  'publishing with a date a minute or more ahead makes the post future; future in the past publishes',
  async () => {
    const ahead = await create(c, admin, { title: 'Later', status: 'publish', date: '2024-06-01T10:00:00' });
    assert.is(ahead.status, 'future');
    assert.is(ahead.date_gmt, '2024-06-01T14:00:00');
    const past = await create(c, admin, { title: 'Sooner', status: 'future', date: '2024-04-01T10:00:00' });
    assert.is(past.status, 'publish');
    // A scheduled post is not public yet.
    const anonymous = await c.request('GET', `/core/v2/posts/${ahead.id}`);
    assert.is(anonymous.status, 401);
    assert.is(anonymous.body.code, 'rest_forbidden');
  },
);

creating('a post with empty title, content and excerpt is refused: 400 empty_content', async () => {
  for (const body of [{}, { status: 'publish' }, { title: '', content: '', excerpt: '' }, { title: { raw: '' } }]) {
    const response = await c.request('POST', '/core/v2/posts', { as: admin, body });
    assert.is(response.status, 400, JSON.stringify(body));
    assert.equal(response.body, {
      code: 'empty_content',
      message: 'Content, title, and excerpt are empty.',
      data: { status: 400 },
    });
  }
});

creating('an id in the body is 400 rest_post_exists, whether sent as JSON or as a form', async () => {
  const expected = { code: 'rest_post_exists', message: 'Cannot create existing post.', data: { status: 400 } };
  const json = await c.request('POST', '/core/v2/posts', { as: admin, body: { id: 5, title: 'x' } });
  assert.is(json.status, 400);
  assert.equal(json.body, expected);
  const form = await c.request('POST', '/core/v2/posts', { as: admin, form: { id: '5', title: 'x' } });
  assert.is(form.status, 400);
  assert.equal(form.body, expected);
});

creating('a contributor may create a draft but not publish: 403 rest_cannot_publish', async () => {
  const contributor = await c.createUser('contrib', 'contributor');
  const draft = await create(c, contributor, { title: 'By a contributor' });
  assert.is(draft.status, 'draft');
  assert.is(draft.author, contributor.id);
  const response = await c.request('POST', '/core/v2/posts', {
    as: contributor,
    body: { title: 'Out now', status: 'publish' },
  });
  assert.is(response.status, 403);
  assert.equal(response.body, {
    code: 'rest_cannot_publish',
    message: 'Sorry, you are not allowed to publish posts in this post type.',
    data: { status: 403 },
  });
});

creating.run();

// ---------------------------------------------------------------------------------------------------------------

const utc = suite('posts: create on a UTC site');
let u: TestSite;

utc.before(async () => {
  u = await startTestSite();
});
utc.after(async () => u.close());

utc('a date with an offset is converted to the site time', async () => {
  const user = await u.createUser('admin', 'administrator');
  const post = await create(u, user, { title: 'Offset', status: 'publish', date: '2010-01-01T02:00:00-10:00' });
  assert.is(post.date, '2010-01-01T12:00:00');
  assert.is(post.date_gmt, '2010-01-01T12:00:00');
  assert.is(post.modified, '2010-01-01T12:00:00');
});

utc.run();

// ---------------------------------------------------------------------------------------------------------------

const reading = suite('posts: read');
let r: TestSite;
let owner: TestUser;
let subscriber: TestUser;
let author: TestUser;
let published: any;
let locked: any;

reading.before(async () => {
  r = await startTestSite();
  owner = await r.createUser('owner', 'administrator');
  subscriber = await r.createUser('reader', 'subscriber');
  author = await r.createUser('writer', 'author');
  published = await create(r, owner, {
    title: 'Visible Post',
    content: 'Body text',
    excerpt: 'The excerpt',
    status: 'publish',
  });
  // A minute later, so that it lists first.
  r.clock.advance(60_000);
  locked = await create(r, owner, {
    title: 'Locked Post',
    content: 'Hidden body',
    excerpt: 'Hidden excerpt',
    status: 'publish',
    password: 'open sesame',
  });
});
reading.after(async () => r.close());

reading('view, edit and embed contexts each show their own fields', async () => {
  const view = await r.request('GET', `/core/v2/posts/${published.id}`);
  assert.is(view.status, 200);
  assert.equal(keys(view.body), [...VIEW_KEYS].sort());
  assert.equal(keys(view.body.title), ['rendered']);
  assert.equal(keys(view.body.content), ['protected', 'rendered']);
  assert.equal(keys(view.body.excerpt), ['protected', 'rendered']);
  assert.equal(keys(view.body.guid), ['rendered']);

  const edit = await r.request('GET', `/core/v2/posts/${published.id}?context=edit`, { as: owner });
  assert.is(edit.status, 200);
  assert.equal(keys(edit.body), [...EDIT_KEYS].sort());
  assert.equal(keys(edit.body.title), ['raw', 'rendered']);
  assert.equal(keys(edit.body.content), ['block_version', 'protected', 'raw', 'rendered']);
  assert.equal(keys(edit.body.excerpt), ['protected', 'raw', 'rendered']);
  assert.equal(keys(edit.body.guid), ['raw', 'rendered']);
  assert.is(edit.body.content.raw, 'Body text');
  assert.is(edit.body.content.block_version, 0);

  const embed = await r.request('GET', `/core/v2/posts/${published.id}?context=embed`);
  assert.is(embed.status, 200);
  assert.equal(keys(embed.body), EMBED_KEYS);
  assert.equal(keys(embed.body.title), ['rendered']);
  assert.equal(keys(embed.body.excerpt), ['protected', 'rendered']);

  const list = await r.request('GET', '/core/v2/posts?context=embed');
  for (const item of list.body) assert.equal(keys(item), EMBED_KEYS);
});

reading('the item links to itself, its collection, its type, its author and its terms', async () => {
  const { body } = await r.request('GET', `/core/v2/posts/${published.id}`);
  const self = `${r.url}/core/v2/posts/${published.id}`;
  assert.equal(body._links.self, [{ href: self }]);
  assert.equal(body._links.collection, [{ href: `${r.url}/core/v2/posts` }]);
  assert.equal(body._links.about, [{ href: `${r.url}/core/v2/types/post` }]);
  assert.equal(body._links.author, [{ embeddable: true, href: `${r.url}/core/v2/users/${owner.id}` }]);
  assert.equal(body._links['version-history'], [{ count: 0, href: `${self}/revisions` }]);
  assert.equal(body._links.curies, [{ name: 'wp', href: 'https://api.w.org/{rel}', templated: true }]);
});

reading('_fields keeps only what is asked, nested paths included, and _links only when asked', async () => {
  const nested = await r.request('GET', `/core/v2/posts/${published.id}?_fields=title.rendered`);
  assert.equal(nested.body, { title: { rendered: 'Visible Post' } });
  const two = await r.request('GET', `/core/v2/posts/${published.id}?_fields=id,slug`);
  assert.equal(two.body, { id: published.id, slug: 'visible-post' });
  const asArray = await r.request('GET', `/core/v2/posts/${published.id}?_fields[]=slug&_fields[]=status`);
  assert.equal(asArray.body, { slug: 'visible-post', status: 'publish' });
  const withLinks = await r.request('GET', `/core/v2/posts/${published.id}?_fields=id,_links`);
  assert.equal(keys(withLinks.body), ['_links', 'id']);
  assert.equal(withLinks.body._links.self, [{ href: `${r.url}/core/v2/posts/${published.id}` }]);
  const list = await r.request('GET', '/core/v2/posts?_fields=id');
  assert.equal(list.body, [{ id: locked.id }, { id: published.id }]);
  // Errors are never filtered.
  const missing = await r.request('GET', '/core/v2/posts/99999?_fields=id');
  assert.equal(missing.body, { code: 'rest_post_invalid_id', message: 'Invalid post ID.', data: { status: 404 } });
});

reading('_envelope answers 200 with the real body, status and headers inside', async () => {
  const item = await r.request('GET', `/core/v2/posts/${published.id}?_envelope&_fields=id`);
  assert.is(item.status, 200);
  assert.equal(item.body, {
    body: { id: published.id },
    status: 200,
    headers: { Link: `<${r.url}/visible-post/>; rel="alternate"; type=text/html`, Allow: 'GET' },
  });
  const missing = await r.request('GET', '/core/v2/posts/99999?_envelope');
  assert.is(missing.status, 200);
  assert.equal(missing.body, {
    body: { code: 'rest_post_invalid_id', message: 'Invalid post ID.', data: { status: 404 } },
    status: 404,
    headers: [],
  });
  // The collection totals are integers, as WordPress sets them.
  const list = await r.request('GET', '/core/v2/posts?_envelope&_fields=id&per_page=1');
  assert.is(list.status, 200);
  assert.is(list.body.status, 200);
  assert.equal(list.body.body, [{ id: locked.id }]);
  assert.is(list.body.headers['X-WP-Total'], 2);
  assert.is(list.body.headers['X-WP-TotalPages'], 2);
  assert.is(list.body.headers.Link, `<${r.url}/core/v2/posts?_envelope&_fields=id&per_page=1&page=2>; rel="next"`);
  assert.is(list.body.headers.Allow, 'GET');
  assert.is(list.headers.get('x-wp-total'), null);
});

reading('HEAD answers with the status and headers of GET, and no body', async () => {
  const get = await r.request('GET', `/core/v2/posts/${published.id}`);
  const head = await r.request('HEAD', `/core/v2/posts/${published.id}`);
  assert.is(head.status, 200);
  assert.is(head.text, '');
  for (const name of ['content-type', 'link', 'allow', 'x-robots-tag'])
    assert.is(head.headers.get(name), get.headers.get(name), name);
  const list = await r.request('HEAD', '/core/v2/posts?per_page=1');
  assert.is(list.status, 200);
  assert.is(list.text, '');
  assert.is(list.headers.get('x-wp-total'), '2');
  assert.is(list.headers.get('x-wp-totalpages'), '2');
  assert.is(list.headers.get('link'), `<${r.url}/core/v2/posts?per_page=1&page=2>; rel="next"`);
  const missing = await r.request('HEAD', '/core/v2/posts/99999');
  assert.is(missing.status, 404);
  assert.is(missing.text, '');
});

reading('a single GET links to the permalink as rel="alternate" in place of the API root link', async () => {
  const item = await r.request('GET', `/core/v2/posts/${published.id}`);
  assert.is(item.headers.get('link'), `<${r.url}/visible-post/>; rel="alternate"; type=text/html`);
  const draft = await create(r, owner, { title: 'Unpublished' });
  const edit = await r.request('GET', `/core/v2/posts/${draft.id}`, { as: owner });
  assert.is(edit.headers.get('link'), `<${r.url}/?p=${draft.id}>; rel="alternate"; type=text/html`);
  // Elsewhere the root is advertised.
  const root = `<${r.url}/>; rel="https://api.w.org/"`;
  assert.is((await r.request('GET', '/core/v2/posts')).headers.get('link'), root);
  assert.is((await r.request('GET', '/core/v2/posts/99999')).headers.get('link'), root);
  assert.is((await r.request('GET', '/')).headers.get('link'), root);
});

reading('Allow lists the methods of the route the caller may use', async () => {
  const item = `/core/v2/posts/${published.id}`;
  assert.is((await r.request('GET', item)).headers.get('allow'), 'GET');
  assert.is((await r.request('GET', item, { as: subscriber })).headers.get('allow'), 'GET');
  // An author cannot edit someone else's post.
  assert.is((await r.request('GET', item, { as: author })).headers.get('allow'), 'GET');
  assert.is((await r.request('GET', item, { as: owner })).headers.get('allow'), 'GET, POST, PUT, PATCH, DELETE');
  assert.is((await r.request('GET', '/core/v2/posts')).headers.get('allow'), 'GET');
  assert.is((await r.request('GET', '/core/v2/posts', { as: subscriber })).headers.get('allow'), 'GET');
  assert.is((await r.request('GET', '/core/v2/posts', { as: author })).headers.get('allow'), 'GET, POST');
  // The answer to a write shows them too, whatever the body held.
  const created = await r.request('POST', '/core/v2/posts', { as: owner, body: { title: 'Allow me' } });
  assert.is(created.headers.get('allow'), 'GET, POST');
  const updated = await r.request('PATCH', `/core/v2/posts/${created.body.id}`, {
    as: owner,
    body: { status: 'pending' },
  });
  assert.is(updated.headers.get('allow'), 'GET, POST, PUT, PATCH, DELETE');
});

reading('errors after routing carry Allow too, and it is left out when nothing is allowed', async () => {
  const invalid = await r.request('GET', '/core/v2/posts?per_page=0');
  assert.is(invalid.status, 400);
  assert.is(invalid.headers.get('allow'), 'GET');
  const beyond = await r.request('GET', '/core/v2/posts?page=99', { as: author });
  assert.is(beyond.status, 400);
  assert.is(beyond.headers.get('allow'), 'GET, POST');
  // The password fails the read rule only.
  const wrong = await r.request('GET', `/core/v2/posts/${published.id}?password=wrong`, { as: owner });
  assert.is(wrong.status, 403);
  assert.is(wrong.headers.get('allow'), 'POST, PUT, PATCH, DELETE');
  // An error thrown by the handler.
  const empty = await r.request('POST', '/core/v2/posts', { as: owner, body: {} });
  assert.is(empty.status, 400);
  assert.is(empty.headers.get('allow'), 'GET, POST');
  const draft = await create(r, owner, { title: 'Nobody may look' });
  for (const path of ['/core/v2/posts/99999', `/core/v2/posts/${draft.id}`, '/no/such/route']) {
    const response = await r.request('GET', path);
    assert.ok(response.status >= 400, path);
    assert.is(response.headers.get('allow'), null, path);
  }
});

reading("every response carries WordPress's common headers, errors included", async () => {
  const responses = [
    await r.request('GET', `/core/v2/posts/${published.id}`),
    await r.request('GET', '/core/v2/posts'),
    await r.request('GET', '/core/v2/posts/99999'),
    await r.request('GET', '/no/such/route'),
    await r.request('POST', '/core/v2/posts', { as: owner, body: { title: 'Headers' } }),
  ];
  for (const response of responses) {
    assert.is(response.headers.get('content-type'), 'application/json; charset=UTF-8');
    assert.is(response.headers.get('x-robots-tag'), 'noindex');
    assert.is(response.headers.get('x-content-type-options'), 'nosniff');
    assert.is(
      response.headers.get('access-control-expose-headers'),
      'X-WP-Total, X-WP-TotalPages, Link, Allow, Retry-After, Idempotent-Replayed',
    );
    assert.is(
      response.headers.get('access-control-allow-headers'),
      'Authorization, X-WP-Nonce, Content-Disposition, Content-MD5, Content-Type, X-HTTP-Method-Override, Idempotency-Key',
    );
  }
});

reading('only signed-in responses forbid caching', async () => {
  const anonymous = await r.request('GET', `/core/v2/posts/${published.id}`);
  assert.is(anonymous.headers.get('expires'), null);
  assert.is(anonymous.headers.get('cache-control'), null);
  for (const as of [subscriber, owner]) {
    for (const path of [`/core/v2/posts/${published.id}`, '/core/v2/posts', '/core/v2/posts/99999']) {
      const signedIn = await r.request('GET', path, { as });
      assert.is(signedIn.headers.get('expires'), 'Wed, 11 Jan 1984 05:00:00 GMT', path);
      assert.is(signedIn.headers.get('cache-control'), 'no-cache, must-revalidate, max-age=0', path);
    }
  }
});

reading(
  'password-protected content and excerpt are hidden unless the password is given or the context is edit',
  async () => {
    const path = `/core/v2/posts/${locked.id}`;
    const hidden = { content: { rendered: '', protected: true }, excerpt: { rendered: '', protected: true } };
    const anonymous = await r.request('GET', `${path}?_fields=content,excerpt`);
    assert.is(anonymous.status, 200);
    assert.equal(anonymous.body, hidden);
    // The title stays, without a "Protected:" prefix.
    assert.is((await r.request('GET', path)).body.title.rendered, 'Locked Post');
    // Even an administrator sees it hidden in view context.
    assert.equal((await r.request('GET', `${path}?_fields=content,excerpt`, { as: owner })).body, hidden);

    const right = await r.request(
      'GET',
      `${path}?_fields=content,excerpt&password=${encodeURIComponent('open sesame')}`,
    );
    assert.is(right.status, 200);
    assert.equal(right.body, {
      content: { rendered: '<p>Hidden body</p>\n', protected: true },
      excerpt: { rendered: '<p>Hidden excerpt</p>\n', protected: true },
    });

    const edit = await r.request('GET', `${path}?context=edit&_fields=content,excerpt,password`, { as: owner });
    assert.is(edit.status, 200);
    assert.is(edit.body.content.rendered, '<p>Hidden body</p>\n');
    assert.is(edit.body.content.raw, 'Hidden body');
    assert.is(edit.body.excerpt.rendered, '<p>Hidden excerpt</p>\n');
    assert.is(edit.body.password, 'open sesame');

    // Lists hide it the same way, and show it for the right password.
    const list = await r.request('GET', `/core/v2/posts?include=${locked.id}&_fields=content`);
    assert.equal(list.body, [{ content: { rendered: '', protected: true } }]);
    const unlocked = await r.request(
      'GET',
      `/core/v2/posts?include=${locked.id}&_fields=content&password=open%20sesame`,
    );
    assert.equal(unlocked.body, [{ content: { rendered: '<p>Hidden body</p>\n', protected: true } }]);
  },
);

reading('a wrong password is 403 rest_post_incorrect_password, also on a post that has none', async () => {
  const expected = { code: 'rest_post_incorrect_password', message: 'Incorrect post password.', data: { status: 403 } };
  for (const id of [locked.id, published.id]) {
    const response = await r.request('GET', `/core/v2/posts/${id}?password=wrong`);
    assert.is(response.status, 403, String(id));
    assert.equal(response.body, expected);
  }
  // Signed in, too: the password is checked before anything is shown.
  const signedIn = await r.request('GET', `/core/v2/posts/${locked.id}?password=wrong&context=edit`, { as: owner });
  assert.is(signedIn.status, 403);
  assert.equal(signedIn.body, expected);
});

reading('a draft is readable by those who can edit it, in view and edit context', async () => {
  const draft = await create(r, author, { title: 'Work in progress' });
  const mine = await r.request('GET', `/core/v2/posts/${draft.id}?context=edit`, { as: author });
  assert.is(mine.status, 200);
  assert.is(mine.body.status, 'draft');
  const editor = await r.request('GET', `/core/v2/posts/${draft.id}`, { as: owner });
  assert.is(editor.status, 200);
  const other = await r.createUser('other-writer', 'author');
  const denied = await r.request('GET', `/core/v2/posts/${draft.id}`, { as: other });
  assert.is(denied.status, 403);
  assert.equal(denied.body, {
    code: 'rest_forbidden',
    message: 'Sorry, you are not allowed to do that.',
    data: { status: 403 },
  });
});

reading('context=edit on an item needs edit rights: 401 anonymous, 403 signed in', async () => {
  const anonymous = await r.request('GET', `/core/v2/posts/${published.id}?context=edit`);
  assert.is(anonymous.status, 401);
  assert.equal(anonymous.body, {
    code: 'rest_forbidden_context',
    message: 'Sorry, you are not allowed to edit this post.',
    data: { status: 401 },
  });
  const signedIn = await r.request('GET', `/core/v2/posts/${published.id}?context=edit`, { as: author });
  assert.is(signedIn.status, 403);
  assert.equal(signedIn.body, {
    code: 'rest_forbidden_context',
    message: 'Sorry, you are not allowed to edit this post.',
    data: { status: 403 },
  });
});

reading.run();

// ---------------------------------------------------------------------------------------------------------------

const listing = suite('posts: list');
let l: TestSite;
let boss: TestUser;
let editor: TestUser;
let writer: TestUser;
let reader: TestUser;
/** Published posts by date: p1 (Jan 1) … p5 (Jan 5). */
const p: Record<string, any> = {};

listing.before(async () => {
  l = await startTestSite();
  boss = await l.createUser('boss', 'administrator');
  editor = await l.createUser('editor', 'editor');
  writer = await l.createUser('writer', 'author');
  reader = await l.createUser('reader', 'subscriber');
  // Titles, slugs and dates each sort differently.
  p.p1 = await create(l, boss, { title: 'Banana', slug: 'zeta', status: 'publish', date: '2024-01-01T10:00:00' });
  p.p3 = await create(l, writer, { title: 'Cherry', slug: 'alpha', status: 'publish', date: '2024-01-03T10:00:00' });
  p.p2 = await create(l, editor, { title: 'apple', slug: 'mu', status: 'publish', date: '2024-01-02T10:00:00' });
  p.p5 = await create(l, editor, { title: 'Elder', slug: 'beta', status: 'publish', date: '2024-01-05T10:00:00' });
  p.p4 = await create(l, boss, { title: 'Date', slug: 'omega', status: 'publish', date: '2024-01-04T10:00:00' });
  p.draft = await create(l, boss, { title: 'Fig' });
  p.private = await create(l, boss, { title: 'Grape', status: 'private', date: '2024-01-06T10:00:00' });
  p.trashed = await create(l, boss, { title: 'Husk', status: 'publish', date: '2024-01-07T10:00:00' });
  assert.is((await l.request('DELETE', `/core/v2/posts/${p.trashed.id}`, { as: boss })).status, 200);
  // p2 was modified last.
  l.clock.advance(60_000);
  assert.is(
    (await l.request('PATCH', `/core/v2/posts/${p.p2.id}`, { as: boss, body: { excerpt: 'touched' } })).status,
    200,
  );
});
listing.after(async () => l.close());

const published5 = () => [p.p5.id, p.p4.id, p.p3.id, p.p2.id, p.p1.id];

listing('by default: published posts, newest first, with X-WP-Total and X-WP-TotalPages', async () => {
  const response = await l.request('GET', '/core/v2/posts');
  assert.is(response.status, 200);
  assert.equal(ids(response), published5());
  assert.is(response.headers.get('x-wp-total'), '5');
  assert.is(response.headers.get('x-wp-totalpages'), '1');
  // No prev/next: the API root link stays.
  assert.is(response.headers.get('link'), `<${l.url}/>; rel="https://api.w.org/"`);
  for (const item of response.body) assert.equal(keys(item), [...VIEW_KEYS].sort());
});

listing('pages: X-WP-TotalPages and Link prev/next built from the original query', async () => {
  const base = `${l.url}/core/v2/posts`;
  const first = await l.request('GET', '/core/v2/posts?per_page=2');
  assert.equal(ids(first), [p.p5.id, p.p4.id]);
  assert.is(first.headers.get('x-wp-total'), '5');
  assert.is(first.headers.get('x-wp-totalpages'), '3');
  assert.is(first.headers.get('link'), `<${base}?per_page=2&page=2>; rel="next"`);

  const middle = await l.request('GET', '/core/v2/posts?per_page=2&page=2');
  assert.equal(ids(middle), [p.p3.id, p.p2.id]);
  assert.is(
    middle.headers.get('link'),
    `<${base}?per_page=2&page=1>; rel="prev", <${base}?per_page=2&page=3>; rel="next"`,
  );

  const last = await l.request('GET', '/core/v2/posts?per_page=2&page=3');
  assert.equal(ids(last), [p.p1.id]);
  assert.is(last.headers.get('link'), `<${base}?per_page=2&page=2>; rel="prev"`);

  // `page` keeps its place in the query.
  const pageFirst = await l.request('GET', '/core/v2/posts?page=2&per_page=2&order=desc');
  assert.is(
    pageFirst.headers.get('link'),
    `<${base}?page=1&per_page=2&order=desc>; rel="prev", <${base}?page=3&per_page=2&order=desc>; rel="next"`,
  );
});

listing('the pagination links repeat the query as sanitized, unregistered params as sent', async () => {
  const base = `${l.url}/core/v2/posts`;
  const response = await l.request(
    'GET',
    `/core/v2/posts?per_page=01&page=2&exclude=${p.p1.id},${p.p2.id}&status=publish&_fields=id,title&_envelope`,
  );
  assert.is(response.status, 200);
  const query = (page: number) =>
    `per_page=1&page=${page}&exclude%5B0%5D=${p.p1.id}&exclude%5B1%5D=${p.p2.id}&status%5B0%5D=publish&_fields=id%2Ctitle&_envelope`;
  assert.is(response.body.headers.Link, `<${base}?${query(1)}>; rel="prev", <${base}?${query(3)}>; rel="next"`);
});

listing('a page beyond the last is 400 rest_post_invalid_page_number, even with an offset', async () => {
  const expected = {
    code: 'rest_post_invalid_page_number',
    message: 'The page number requested is larger than the number of pages available.',
    data: { status: 400 },
  };
  for (const query of ['per_page=2&page=4', 'page=2', 'per_page=2&page=9&offset=1']) {
    const response = await l.request('GET', `/core/v2/posts?${query}`);
    assert.is(response.status, 400, query);
    assert.equal(response.body, expected);
  }
});

listing('an empty collection is 200 [] with totals 0, on any page', async () => {
  const empty = await l.request('GET', '/core/v2/posts?include=99999');
  assert.is(empty.status, 200);
  assert.equal(empty.body, []);
  assert.is(empty.headers.get('x-wp-total'), '0');
  assert.is(empty.headers.get('x-wp-totalpages'), '0');
  assert.is(empty.headers.get('link'), `<${l.url}/>; rel="https://api.w.org/"`);
  // WordPress still links back, to page 0.
  const later = await l.request('GET', '/core/v2/posts?include=99999&page=3');
  assert.is(later.status, 200);
  assert.equal(later.body, []);
  assert.is(later.headers.get('link'), `<${l.url}/core/v2/posts?include%5B0%5D=99999&page=0>; rel="prev"`);
});

listing(
  'offset skips matches, takes priority over page, and leaves the totals alone unless it leaves the page empty',
  async () => {
    const offset = await l.request('GET', '/core/v2/posts?per_page=2&offset=1');
    assert.equal(ids(offset), [p.p4.id, p.p3.id]);
    assert.is(offset.headers.get('x-wp-total'), '5');
    assert.is(offset.headers.get('x-wp-totalpages'), '3');
    const withPage = await l.request('GET', '/core/v2/posts?per_page=2&offset=1&page=2');
    assert.equal(ids(withPage), [p.p4.id, p.p3.id]);
    const beyond = await l.request('GET', '/core/v2/posts?offset=10');
    assert.is(beyond.status, 200);
    assert.equal(beyond.body, []);
    // WordPress 6.1 counts the matches only when the page holds some.
    assert.is(beyond.headers.get('x-wp-total'), '0');
  },
);

listing('order and orderby: date, id, title, slug, modified, include', async () => {
  const list = async (query: string) => {
    const response = await l.request('GET', `/core/v2/posts?${query}`);
    assert.is(response.status, 200, `${query}: ${response.text}`);
    return ids(response);
  };
  assert.equal(await list('order=asc'), [...published5()].reverse());
  assert.equal(await list('orderby=date&order=desc'), published5());
  assert.equal(await list('orderby=id&order=asc'), [p.p1.id, p.p3.id, p.p2.id, p.p5.id, p.p4.id]);
  assert.equal(await list('orderby=id'), [p.p4.id, p.p5.id, p.p2.id, p.p3.id, p.p1.id]);
  // Titles compare without regard to case: apple, Banana, Cherry, Date, Elder.
  assert.equal(await list('orderby=title&order=asc'), [p.p2.id, p.p1.id, p.p3.id, p.p4.id, p.p5.id]);
  assert.equal(await list('orderby=slug&order=asc'), [p.p3.id, p.p5.id, p.p2.id, p.p4.id, p.p1.id]);
  assert.equal((await list('orderby=modified'))[0], p.p2.id);
  assert.equal(await list(`orderby=include&include=${p.p3.id},${p.p1.id},${p.p4.id}`), [p.p3.id, p.p1.id, p.p4.id]);
  assert.equal(await list(`orderby=include&include[]=${p.p4.id}&include[]=${p.p2.id}`), [p.p4.id, p.p2.id]);
});

listing('orderby=include needs include; orderby=relevance needs a search term', async () => {
  const include = await l.request('GET', '/core/v2/posts?orderby=include');
  assert.is(include.status, 400);
  assert.equal(include.body, {
    code: 'rest_orderby_include_missing_include',
    message: 'You need to define an include parameter to order by include.',
    data: { status: 400 },
  });
  const relevance = await l.request('GET', '/core/v2/posts?orderby=relevance');
  assert.is(relevance.status, 400);
  assert.equal(relevance.body, {
    code: 'rest_no_search_term_defined',
    message: 'You need to define a search term to order by relevance.',
    data: { status: 400 },
  });
});

listing('include and exclude; with include given, exclude is ignored', async () => {
  const list = async (query: string) => ids(await l.request('GET', `/core/v2/posts?${query}`));
  assert.equal(await list(`include=${p.p1.id},${p.p2.id}`), [p.p2.id, p.p1.id]);
  assert.equal(await list(`exclude=${p.p1.id}&exclude=${p.p5.id}`), [p.p4.id, p.p3.id, p.p2.id, p.p1.id]);
  assert.equal(await list(`exclude[]=${p.p1.id}&exclude[]=${p.p5.id}`), [p.p4.id, p.p3.id, p.p2.id]);
  assert.equal(await list(`include=${p.p1.id},${p.p2.id}&exclude=${p.p1.id}`), [p.p2.id, p.p1.id]);
  // Include does not reach past the status filter.
  assert.equal(await list(`include=${p.draft.id},${p.p1.id}`), [p.p1.id]);
});

listing('author and author_exclude', async () => {
  const list = async (query: string) => ids(await l.request('GET', `/core/v2/posts?${query}`));
  assert.equal(await list(`author=${editor.id}`), [p.p5.id, p.p2.id]);
  assert.equal(await list(`author=${editor.id},${writer.id}`), [p.p5.id, p.p3.id, p.p2.id]);
  assert.equal(await list(`author_exclude=${editor.id}`), [p.p4.id, p.p3.id, p.p1.id]);
  assert.equal(await list(`author=${boss.id}&author_exclude=${boss.id}`), []);
  assert.equal(await list(`author=${reader.id}`), []);
});

listing('status: publish by default, others for those who may edit, any for every non-trash status', async () => {
  const list = async (query: string, as: TestUser | null = boss) => {
    const response = await l.request('GET', `/core/v2/posts?${query}`, { as });
    assert.is(response.status, 200, `${query}: ${response.text}`);
    return ids(response);
  };
  assert.equal(await list('status=publish', null), published5());
  assert.equal(await list('status=draft'), [p.draft.id]);
  assert.equal(await list('status=private'), [p.private.id]);
  assert.equal(await list('status=trash'), [p.trashed.id]);
  // The floating draft is dated now, after everything else.
  assert.equal(await list('status=draft,private'), [p.draft.id, p.private.id]);
  assert.equal(await list('status[]=private&status[]=publish&per_page=2'), [p.private.id, p.p5.id]);
  const any = await list('status=any&per_page=100');
  assert.equal(
    [...any].sort((a, b) => a - b),
    [p.p1.id, p.p2.id, p.p3.id, p.p4.id, p.p5.id, p.draft.id, p.private.id].sort((a, b) => a - b),
  );
  // An editor reads other people's drafts; an author may filter by draft but sees only what it may read,
  // while the total still counts the rest.
  assert.equal(await list('status=draft', editor), [p.draft.id]);
  const author = await l.request('GET', '/core/v2/posts?status=draft', { as: writer });
  assert.is(author.status, 200);
  assert.equal(author.body, []);
  assert.is(author.headers.get('x-wp-total'), '1');
});

listing(
  'status beyond publish without edit rights is an invalid param whose details say rest_forbidden_status',
  async () => {
    for (const [as, status] of [
      [null, 401],
      [reader, 403],
    ] as const) {
      for (const query of ['status=draft', 'status=any', 'status=publish,private']) {
        const response = await l.request('GET', `/core/v2/posts?${query}`, { as });
        assert.is(response.status, 400, query);
        assert.equal(response.body, {
          code: 'rest_invalid_param',
          message: 'Invalid parameter(s): status',
          data: {
            status: 400,
            params: { status: 'Status is forbidden.' },
            details: { status: { code: 'rest_forbidden_status', message: 'Status is forbidden.', data: { status } } },
          },
        });
      }
    }
  },
);

listing('context=edit on the collection needs edit rights: 401 anonymous, 403 for a subscriber', async () => {
  const anonymous = await l.request('GET', '/core/v2/posts?context=edit');
  assert.is(anonymous.status, 401);
  assert.equal(anonymous.body, {
    code: 'rest_forbidden_context',
    message: 'Sorry, you are not allowed to edit posts in this post type.',
    data: { status: 401 },
  });
  const subscriberResponse = await l.request('GET', '/core/v2/posts?context=edit', { as: reader });
  assert.is(subscriberResponse.status, 403);
  assert.is(subscriberResponse.body.code, 'rest_forbidden_context');
  assert.is(subscriberResponse.body.data.status, 403);
  // The author's own post: an edit-context list leaves out what its caller may not edit.
  const allowed = await l.request('GET', `/core/v2/posts?context=edit&author=${writer.id}&per_page=1`, { as: writer });
  assert.is(allowed.status, 200);
  assert.equal(keys(allowed.body[0]), [...EDIT_KEYS].sort());
});

listing.run();

// ---------------------------------------------------------------------------------------------------------------

const updating = suite('posts: update');
let w: TestSite;
let chief: TestUser;
let contributor: TestUser;

updating.before(async () => {
  w = await startTestSite();
  chief = await w.createUser('chief', 'administrator');
  contributor = await w.createUser('helper', 'contributor');
});
updating.after(async () => w.close());

updating(
  'POST, PUT and PATCH answer 200 with the post in edit context, no Location, and change only what was sent',
  async () => {
    const post = await create(w, chief, {
      title: 'Original',
      content: 'First body',
      excerpt: 'First excerpt',
      status: 'publish',
    });
    const path = `/core/v2/posts/${post.id}`;
    const steps: [string, Record<string, unknown>, (body: any) => void][] = [
      ['PATCH', { excerpt: 'Second excerpt' }, (b) => assert.is(b.excerpt.raw, 'Second excerpt')],
      ['PUT', { title: 'Renamed' }, (b) => assert.is(b.title.raw, 'Renamed')],
      ['POST', { content: { raw: 'Second body' } }, (b) => assert.is(b.content.raw, 'Second body')],
    ];
    let previous = post;
    for (const [method, body, check] of steps) {
      const response = await w.request(method, path, { as: chief, body });
      assert.is(response.status, 200, `${method}: ${response.text}`);
      assert.is(response.headers.get('location'), null);
      assert.equal(keys(response.body), [...EDIT_KEYS].sort());
      check(response.body);
      for (const field of ['title', 'content', 'excerpt', 'slug', 'status', 'date', 'author', 'comment_status']) {
        if (!(field in body)) assert.equal(response.body[field], previous[field], `${method} kept ${field}`);
      }
      previous = response.body;
    }
    // The slug stays although the title changed.
    assert.is(previous.slug, 'original');
    const read = await w.request('GET', `${path}?context=edit`, { as: chief });
    assert.is(read.body.title.raw, 'Renamed');
    assert.is(read.body.content.raw, 'Second body');
    assert.is(read.body.excerpt.raw, 'Second excerpt');
  },
);

updating('an update moves modified and keeps date', async () => {
  const post = await create(w, chief, { title: 'Clockwork', status: 'publish' });
  w.clock.advance(3_600_000);
  const response = await w.request('PATCH', `/core/v2/posts/${post.id}`, { as: chief, body: { content: 'later' } });
  assert.is(response.body.date, post.date);
  assert.is(response.body.modified, '2024-05-01T13:00:00');
  assert.is(response.body.modified_gmt, '2024-05-01T13:00:00');
});

updating('sending the same values twice is fine', async () => {
  const post = await create(w, chief, { title: 'Steady', content: 'Same', status: 'publish' });
  const body = { title: 'Steady', content: 'Same', status: 'publish', slug: 'steady', comment_status: 'open' };
  const once = await w.request('PUT', `/core/v2/posts/${post.id}`, { as: chief, body });
  const twice = await w.request('PUT', `/core/v2/posts/${post.id}`, { as: chief, body });
  assert.is(once.status, 200, once.text);
  assert.is(twice.status, 200, twice.text);
  assert.is(twice.body.slug, 'steady');
  assert.equal({ ...twice.body, _links: undefined }, { ...once.body, _links: undefined });
});

updating('publishing a draft gives it its slug from the title', async () => {
  const draft = await create(w, chief, { title: 'Ready Soon' });
  assert.is(draft.slug, '');
  const response = await w.request('PATCH', `/core/v2/posts/${draft.id}`, { as: chief, body: { status: 'publish' } });
  assert.is(response.status, 200);
  assert.is(response.body.status, 'publish');
  assert.is(response.body.slug, 'ready-soon');
  assert.is(response.body.link, `${w.url}/ready-soon/`);
});

updating('an unknown id is 404 rest_post_invalid_id for every method', async () => {
  for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
    for (const id of [99999, 0]) {
      const response = await w.request(method, `/core/v2/posts/${id}`, {
        as: chief,
        body: method === 'GET' || method === 'DELETE' ? undefined : { title: 'x' },
      });
      assert.is(response.status, 404, `${method} ${id}`);
      assert.equal(response.body, { code: 'rest_post_invalid_id', message: 'Invalid post ID.', data: { status: 404 } });
    }
  }
});

updating('editing needs edit_post: 401 anonymous, 403 for a contributor on another user’s post', async () => {
  const post = await create(w, chief, { title: 'Not yours', status: 'publish' });
  const anonymous = await w.request('PATCH', `/core/v2/posts/${post.id}`, { body: { title: 'Mine now' } });
  assert.is(anonymous.status, 401);
  assert.equal(anonymous.body, {
    code: 'rest_cannot_edit',
    message: 'Sorry, you are not allowed to edit this post.',
    data: { status: 401 },
  });
  const other = await w.request('PUT', `/core/v2/posts/${post.id}`, { as: contributor, body: { title: 'Mine now' } });
  assert.is(other.status, 403);
  assert.equal(other.body, {
    code: 'rest_cannot_edit',
    message: 'Sorry, you are not allowed to edit this post.',
    data: { status: 403 },
  });
  assert.is((await w.request('GET', `/core/v2/posts/${post.id}`)).body.title.rendered, 'Not yours');
});

updating.run();

// ---------------------------------------------------------------------------------------------------------------

const deleting = suite('posts: delete');
let d: TestSite;
let keeper: TestUser;

deleting.before(async () => {
  d = await startTestSite();
  keeper = await d.createUser('keeper', 'administrator');
});
deleting.after(async () => d.close());

deleting('DELETE moves the post to the trash and answers with it: status trash, slug …__trashed', async () => {
  const post = await create(d, keeper, { title: 'Short Lived', status: 'publish' });
  const response = await d.request('DELETE', `/core/v2/posts/${post.id}`, { as: keeper });
  assert.is(response.status, 200);
  assert.equal(keys(response.body), [...EDIT_KEYS].sort());
  assert.is(response.body.id, post.id);
  assert.is(response.body.status, 'trash');
  assert.is(response.body.slug, 'short-lived__trashed');
  assert.is(response.body.title.raw, 'Short Lived');
  assert.is(response.headers.get('allow'), 'GET, POST, PUT, PATCH, DELETE');
  const read = await d.request('GET', `/core/v2/posts/${post.id}`, { as: keeper });
  assert.is(read.status, 200);
  assert.is(read.body.status, 'trash');
  // Out of public view, and its slug is free again.
  const anonymous = await d.request('GET', `/core/v2/posts/${post.id}`);
  assert.is(anonymous.status, 401);
  assert.is(anonymous.body.code, 'rest_forbidden');
  const again = await create(d, keeper, { title: 'Short Lived', status: 'publish' });
  assert.is(again.slug, 'short-lived');
});

deleting('trashing a trashed post is 410 rest_already_trashed', async () => {
  const post = await create(d, keeper, { title: 'Twice', status: 'publish' });
  assert.is((await d.request('DELETE', `/core/v2/posts/${post.id}`, { as: keeper })).status, 200);
  for (const query of ['', '?force=false', '?force=0']) {
    const response = await d.request('DELETE', `/core/v2/posts/${post.id}${query}`, { as: keeper });
    assert.is(response.status, 410, query);
    assert.equal(response.body, {
      code: 'rest_already_trashed',
      message: 'The post has already been deleted.',
      data: { status: 410 },
    });
  }
});

deleting('force=true deletes for good: {deleted: true, previous}, then 404', async () => {
  const post = await create(d, keeper, { title: 'Gone For Good', content: 'Bye', status: 'publish' });
  const response = await d.request('DELETE', `/core/v2/posts/${post.id}?force=true`, { as: keeper });
  assert.is(response.status, 200);
  assert.equal(keys(response.body), ['deleted', 'previous']);
  assert.is(response.body.deleted, true);
  // The item as it was, without links (WordPress sends none there).
  assert.equal(keys(response.body.previous), EDIT_KEYS.filter((key) => key !== '_links').sort());
  assert.is(response.body.previous.id, post.id);
  assert.is(response.body.previous.status, 'publish');
  assert.is(response.body.previous.content.raw, 'Bye');
  // Judged after the deletion, no method is allowed any more: no Allow header.
  assert.is(response.headers.get('allow'), null);
  const expected = { code: 'rest_post_invalid_id', message: 'Invalid post ID.', data: { status: 404 } };
  assert.equal((await d.request('GET', `/core/v2/posts/${post.id}`, { as: keeper })).body, expected);
  assert.equal((await d.request('DELETE', `/core/v2/posts/${post.id}?force=true`, { as: keeper })).body, expected);
  const list = await d.request('GET', `/core/v2/posts?status=any&include=${post.id}`, { as: keeper });
  assert.equal(list.body, []);

  // A trashed post can be deleted for good too (JSON body force this time).
  const trashed = await create(d, keeper, { title: 'Trash First', status: 'publish' });
  await d.request('DELETE', `/core/v2/posts/${trashed.id}`, { as: keeper });
  const final = await d.request('DELETE', `/core/v2/posts/${trashed.id}`, { as: keeper, body: { force: true } });
  assert.is(final.status, 200);
  assert.is(final.body.deleted, true);
  assert.is(final.body.previous.status, 'trash');
});

deleting('deleting needs delete_post: 401 anonymous, 403 for a contributor on another user’s post', async () => {
  const post = await create(d, keeper, { title: 'Keep Me', status: 'publish' });
  const anonymous = await d.request('DELETE', `/core/v2/posts/${post.id}`);
  assert.is(anonymous.status, 401);
  assert.equal(anonymous.body, {
    code: 'rest_cannot_delete',
    message: 'Sorry, you are not allowed to delete this post.',
    data: { status: 401 },
  });
  const helper = await d.createUser('helper', 'contributor');
  const other = await d.request('DELETE', `/core/v2/posts/${post.id}?force=true`, { as: helper });
  assert.is(other.status, 403);
  assert.is(other.body.code, 'rest_cannot_delete');
  assert.is((await d.request('GET', `/core/v2/posts/${post.id}`)).status, 200);
});

deleting.run();
