/**
 * /core/v2/comments, black-box through the app. Expected values follow WordPress 6.1 (the reference site's
 * answers to the same requests are recorded below); the list suite runs on both read models.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestResponse, TestSite, TestUser } from '../support/testSite';
import { testRedisReadModel } from '../support/redis';
import type { ReadModel } from '../../src/ports/readModel';

/** The keys WordPress 6.1 answers with per context (GET /wp/v2/comments/1, reference site), in its order. */
const REFERENCE_KEYS = {
  view: [
    'id',
    'post',
    'parent',
    'author',
    'author_name',
    'author_url',
    'date',
    'date_gmt',
    'content',
    'link',
    'status',
    'type',
    'author_avatar_urls',
    'meta',
    '_links',
  ],
  embed: [
    'id',
    'parent',
    'author',
    'author_name',
    'author_url',
    'date',
    'content',
    'link',
    'type',
    'author_avatar_urls',
    '_links',
  ],
  edit: [
    'id',
    'post',
    'parent',
    'author',
    'author_name',
    'author_email',
    'author_url',
    'author_ip',
    'author_user_agent',
    'date',
    'date_gmt',
    'content',
    'link',
    'status',
    'type',
    'author_avatar_urls',
    'meta',
    '_links',
  ],
};

const ids = (response: TestResponse): number[] => (response.body as { id: number }[]).map((item) => item.id);
const expectError = (response: TestResponse, status: number, code: string) => {
  assert.is(response.status, status, JSON.stringify(response.body));
  assert.is(response.body.code, code);
};

interface Fixture {
  t: TestSite;
  admin: TestUser;
  editor: TestUser;
  author: TestUser;
  contributor: TestUser;
  subscriber: TestUser;
}

async function fixture(readModel?: ReadModel): Promise<Fixture> {
  const t = await startTestSite({ readModel });
  return {
    t,
    admin: await t.createUser('admin', 'administrator'),
    editor: await t.createUser('editor', 'editor'),
    author: await t.createUser('author', 'author'),
    contributor: await t.createUser('contributor', 'contributor'),
    subscriber: await t.createUser('subscriber', 'subscriber'),
  };
}

async function makePost(f: Fixture, as: TestUser, body: Record<string, unknown> = {}): Promise<number> {
  const response = await f.t.request('POST', '/core/v2/posts', {
    as,
    body: { title: 'Post', status: 'publish', ...body },
  });
  assert.is(response.status, 201, JSON.stringify(response.body));
  return response.body.id;
}

async function comment(f: Fixture, as: TestUser, body: Record<string, unknown>): Promise<any> {
  const response = await f.t.request('POST', '/core/v2/comments', { as, body });
  assert.is(response.status, 201, JSON.stringify(response.body));
  return response.body;
}

// ---------------------------------------------------------------------------------------------------------------

const items = suite('comments: items, rules and permissions');
let f: Fixture;
items.before.each(async () => {
  f = await fixture();
});
items.after.each(async () => f.t.close());

items("shapes per context and links match WordPress; a post's replies link resolves", async () => {
  const post = await makePost(f, f.admin);
  const parent = await comment(f, f.admin, { post, content: 'Parent' });
  const reply = await comment(f, f.admin, { post, content: 'hello <b>x</b>', parent: parent.id });
  assert.equal(Object.keys(reply), REFERENCE_KEYS.edit);
  // The reference answers the same content with these (POST /wp/v2/comments as an administrator).
  assert.equal(reply.content, { rendered: '<p>hello <b>x</b></p>\n', raw: 'hello <b>x</b>' });
  assert.is(reply.status, 'approved');
  assert.is(reply.type, 'comment');
  assert.equal(Object.keys(reply.author_avatar_urls), ['24', '48', '96']);
  assert.match(reply.link, new RegExp(`#comment-${reply.id}$`));
  assert.equal(Object.keys(reply._links), ['self', 'collection', 'author', 'up', 'in-reply-to']);
  assert.equal(reply._links.up, [{ embeddable: true, post_type: 'post', href: `${f.t.url}/core/v2/posts/${post}` }]);
  assert.equal(reply._links['in-reply-to'], [{ embeddable: true, href: `${f.t.url}/core/v2/comments/${parent.id}` }]);

  const view = await f.t.request('GET', `/core/v2/comments/${parent.id}`);
  assert.equal(Object.keys(view.body), REFERENCE_KEYS.view);
  assert.equal(view.body.content, { rendered: '<p>Parent</p>\n' });
  assert.equal(view.body._links.children, [
    { embeddable: true, href: `${f.t.url}/core/v2/comments?parent=${parent.id}` },
  ]);
  const embed = await f.t.request('GET', `/core/v2/comments/${parent.id}?context=embed`);
  assert.equal(Object.keys(embed.body), REFERENCE_KEYS.embed);
  const edit = await f.t.request('GET', `/core/v2/comments/${parent.id}?context=edit`, { as: f.admin });
  assert.equal(Object.keys(edit.body), REFERENCE_KEYS.edit);

  const postBody = (await f.t.request('GET', `/core/v2/posts/${post}`)).body;
  const replies = await f.t.request('GET', postBody._links.replies[0].href.slice(f.t.url.length));
  assert.is(replies.status, 200);
  assert.equal(ids(replies), [reply.id, parent.id]);
});

items(
  'anonymous comments are refused as WordPress refuses them by default; author_ip and the user agent are edit-only',
  async () => {
    const post = await makePost(f, f.admin);
    expectError(
      await f.t.request('POST', '/core/v2/comments', {
        body: { post, content: 'Hi', author_name: 'Anon', author_email: 'a@example.test' },
      }),
      401,
      'rest_comment_login_required',
    );
    const mine = await f.t.request('POST', '/core/v2/comments', {
      as: f.subscriber,
      body: { post, content: 'Hi' },
      headers: { 'user-agent': 'TestAgent/1' },
    });
    assert.is(mine.status, 201);
    assert.is(mine.body.author, f.subscriber.id);
    assert.is(mine.body.author_name, 'subscriber');
    // WordPress answers a writer without moderate_comments in the view context (reference: POST as the subscriber).
    assert.equal(Object.keys(mine.body), REFERENCE_KEYS.view);
    assert.is(
      (await f.t.request('GET', `/core/v2/comments/${mine.body.id}?context=edit`, { as: f.editor })).body
        .author_user_agent,
      'TestAgent/1',
    );
    // WordPress holds a first comment from an author with no approved one.
    assert.is(mine.body.status, 'hold');
    const asModerator = await f.t.request('GET', `/core/v2/comments/${mine.body.id}`, { as: f.editor });
    assert.not.ok('author_ip' in asModerator.body);
    assert.not.ok('author_user_agent' in asModerator.body);
    assert.not.ok('author_email' in asModerator.body);
    // Held: hidden from others, visible to its author and to moderators.
    expectError(await f.t.request('GET', `/core/v2/comments/${mine.body.id}`), 401, 'rest_cannot_read');
    expectError(
      await f.t.request('GET', `/core/v2/comments/${mine.body.id}`, { as: f.contributor }),
      403,
      'rest_cannot_read',
    );
    assert.is((await f.t.request('GET', `/core/v2/comments/${mine.body.id}`, { as: f.subscriber })).status, 200);
    expectError(
      await f.t.request('GET', `/core/v2/comments/${mine.body.id}?context=edit`, { as: f.subscriber }),
      403,
      'rest_forbidden_context',
    );
    // Once one is approved, the next is approved at once.
    await f.t.request('POST', `/core/v2/comments/${mine.body.id}`, { as: f.editor, body: { status: 'approve' } });
    f.t.clock.advance(15_000);
    assert.is((await comment(f, f.subscriber, { post, content: 'Again' })).status, 'approved');
  },
);

items('the post decides: missing, draft, private, closed, protected', async () => {
  const draft = await makePost(f, f.admin, { status: 'draft' });
  const privatePost = await makePost(f, f.admin, { status: 'private' });
  const closed = await makePost(f, f.admin, { comment_status: 'closed' });
  const secret = await makePost(f, f.admin, { password: 'pw' });
  const say = (body: Record<string, unknown>, as: TestUser = f.subscriber) =>
    f.t.request('POST', '/core/v2/comments', { as, body: { content: 'Hi', ...body } });
  expectError(await say({}), 403, 'rest_comment_invalid_post_id');
  expectError(await say({ post: 999 }), 403, 'rest_comment_invalid_post_id');
  expectError(await say({ post: draft }), 403, 'rest_comment_draft_post');
  expectError(await say({ post: privatePost }), 403, 'rest_cannot_read_post');
  expectError(await say({ post: closed }), 403, 'rest_comment_closed');
  expectError(await say({ post: secret }), 403, 'rest_cannot_read_post');
  assert.is((await say({ post: secret, password: 'pw' })).status, 201);
  assert.is((await say({ post: privatePost }, f.editor)).status, 201);
  // Reading the comments of a protected post takes its password too.
  expectError(await f.t.request('GET', `/core/v2/comments?post=${secret}`), 401, 'rest_cannot_read_post');
  assert.is((await f.t.request('GET', `/core/v2/comments?post=${secret}&password=pw`)).status, 200);
  expectError(await f.t.request('GET', `/core/v2/comments?post=${privatePost}`), 401, 'rest_cannot_read_post');
  expectError(await f.t.request('GET', '/core/v2/comments?post=0'), 401, 'rest_cannot_read');
});

items('content, duplicates, threads and the fields only moderators may set', async () => {
  const post = await makePost(f, f.admin);
  const other = await makePost(f, f.admin);
  const say = (body: Record<string, unknown>, as: TestUser = f.subscriber) =>
    f.t.request('POST', '/core/v2/comments', { as, body: { post, ...body } });
  expectError(await say({ content: '' }), 400, 'rest_comment_content_invalid');
  expectError(await say({}), 400, 'rest_comment_content_invalid');
  await comment(f, f.subscriber, { post, content: { raw: 'Same' } });
  const duplicate = await say({ content: 'Same' });
  expectError(duplicate, 409, 'comment_duplicate');
  assert.is(duplicate.body.message, 'Duplicate comment detected; it looks as though you&#8217;ve already said that!');
  const elsewhere = await comment(f, f.admin, { post: other, content: 'There' });
  expectError(await say({ content: 'Reply', parent: elsewhere.id }), 400, 'rest_comment_invalid_parent');
  expectError(await say({ content: 'Reply', parent: 999 }), 400, 'rest_comment_invalid_parent');
  expectError(await say({ content: 'x', status: 'approve' }), 403, 'rest_comment_invalid_status');
  expectError(await say({ content: 'x', author: f.admin.id }), 403, 'rest_comment_invalid_author');
  expectError(await say({ content: 'x', author_ip: '10.1.2.3' }), 403, 'rest_comment_invalid_author_ip');
  const held = await comment(f, f.admin, { post, content: 'Held by choice', status: 'hold', author_ip: '10.1.2.3' });
  assert.is(held.status, 'hold');
  assert.is(held.author_ip, '10.1.2.3');
  const onBehalf = await comment(f, f.editor, { post, content: 'For them', author: f.subscriber.id });
  assert.equal([onBehalf.author, onBehalf.author_name], [f.subscriber.id, 'subscriber']);
  expectError(await say({ content: 'x', author: 999 }, f.admin), 400, 'rest_comment_author_invalid');
});

items('who may edit and delete whose comments', async () => {
  const authorsPost = await makePost(f, f.author);
  const adminsPost = await makePost(f, f.admin);
  const onAuthors = await comment(f, f.subscriber, { post: authorsPost, content: "On the author's post" });
  f.t.clock.advance(15_000);
  const onAdmins = await comment(f, f.subscriber, { post: adminsPost, content: "On the admin's post" });
  const edit = (id: number, as: TestUser | null) =>
    f.t.request('POST', `/core/v2/comments/${id}`, { as, body: { content: `Edited by ${as?.login ?? 'nobody'}` } });
  expectError(await edit(onAuthors.id, null), 401, 'rest_cannot_edit');
  expectError(await edit(onAuthors.id, f.subscriber), 403, 'rest_cannot_edit');
  expectError(await edit(onAuthors.id, f.contributor), 403, 'rest_cannot_edit');
  assert.is((await edit(onAuthors.id, f.author)).status, 200);
  expectError(await edit(onAdmins.id, f.author), 403, 'rest_cannot_edit');
  const byEditor = await edit(onAdmins.id, f.editor);
  assert.is(byEditor.status, 200);
  assert.is(byEditor.body.content.raw, 'Edited by editor');
  expectError(
    await f.t.request('DELETE', `/core/v2/comments/${onAdmins.id}`, { as: f.author }),
    403,
    'rest_cannot_delete',
  );
  expectError(await f.t.request('DELETE', `/core/v2/comments/${onAdmins.id}`), 401, 'rest_cannot_delete');
  expectError(
    await f.t.request('POST', '/core/v2/comments/999', { as: f.admin, body: { content: 'x' } }),
    404,
    'rest_comment_invalid_id',
  );
  expectError(
    await f.t.request('POST', `/core/v2/comments/${onAdmins.id}`, { as: f.admin, body: { content: '' } }),
    400,
    'rest_comment_content_invalid',
  );
  expectError(
    await f.t.request('POST', `/core/v2/comments/${onAdmins.id}`, { as: f.admin, body: { post: 999 } }),
    403,
    'rest_comment_invalid_post_id',
  );
});

items(
  'statuses: approve, hold, spam, trash and back; trash twice is 410; force deletes and lifts the replies',
  async () => {
    const post = await makePost(f, f.admin);
    const top = await comment(f, f.admin, { post, content: 'Top' });
    const reply = await comment(f, f.admin, { post, content: 'Reply', parent: top.id });
    const setStatus = async (status: string) =>
      (await f.t.request('POST', `/core/v2/comments/${top.id}`, { as: f.editor, body: { status } })).body.status;
    assert.is(await setStatus('hold'), 'hold');
    assert.is(await setStatus('approve'), 'approved');
    assert.is(await setStatus('spam'), 'spam');
    assert.is(await setStatus('unspam'), 'approved');
    const trashed = await f.t.request('DELETE', `/core/v2/comments/${top.id}`, { as: f.editor });
    assert.is(trashed.status, 200);
    assert.is(trashed.body.status, 'trash');
    assert.ok('author_ip' in trashed.body, 'answered in the edit context');
    expectError(
      await f.t.request('DELETE', `/core/v2/comments/${top.id}`, { as: f.editor }),
      410,
      'rest_already_trashed',
    );
    assert.is(await setStatus('untrash'), 'approved');
    const deleted = await f.t.request('DELETE', `/core/v2/comments/${top.id}?force=true`, { as: f.admin });
    assert.is(deleted.status, 200);
    assert.is(deleted.body.deleted, true);
    assert.is(deleted.body.previous.id, top.id);
    expectError(await f.t.request('GET', `/core/v2/comments/${top.id}`), 404, 'rest_comment_invalid_id');
    assert.is((await f.t.request('GET', `/core/v2/comments/${reply.id}`)).body.parent, 0);
  },
);

items('writes leave audit entries', async () => {
  const post = await makePost(f, f.admin);
  const made = await comment(f, f.editor, { post, content: 'Audited' });
  const audit = await f.t.request('GET', `/audit/v1/events?stream=comment-${made.id}`, { as: f.admin });
  assert.is(audit.status, 200, JSON.stringify(audit.body));
  const entries = audit.body as { type: string; user: number }[];
  assert.ok(
    entries.some((e) => e.type === 'CommentCreated' && e.user === f.editor.id),
    JSON.stringify(entries),
  );
});

items.run();

// ---------------------------------------------------------------------------------------------------------------

const lists = suite('comments: the list query on both read models');
const backends: (Fixture & { cleanup(): Promise<void>; posts: number[]; byContent: Map<number, string> })[] = [];

lists.before(async () => {
  for (const kind of ['memory', 'redis'] as const) {
    const redis = kind === 'redis' ? testRedisReadModel() : null;
    const fx = await fixture(redis?.readModel);
    const posts = [await makePost(fx, fx.admin), await makePost(fx, fx.author)];
    const byContent = new Map<number, string>();
    const add = async (as: TestUser, body: Record<string, unknown>) => {
      fx.t.clock.advance(60_000);
      const made = await comment(fx, as, body);
      byContent.set(made.id, body.content as string);
      return made;
    };
    const a = await add(fx.admin, { post: posts[0], content: 'Apple' });
    await add(fx.editor, { post: posts[0], content: 'Banana', parent: a.id });
    await add(fx.subscriber, { post: posts[1], content: 'Cherry held' });
    await add(fx.admin, { post: posts[1], content: 'Damson apple' });
    await add(fx.admin, { post: posts[1], content: 'Elder spam', status: 'spam' });
    const cleanup = async () => {
      await fx.t.close();
      await redis?.cleanup();
    };
    backends.push({ ...fx, posts, byContent, cleanup });
  }
});
lists.after(async () => {
  for (const backend of backends) await backend.cleanup();
});

/** Runs the query on every backend, checks they agree, and returns the contents in order with the headers. */
async function listed(query: (b: (typeof backends)[number]) => string, as?: 'admin' | 'subscriber') {
  const results = await Promise.all(
    backends.map(async (b) => {
      const response = await b.t.request('GET', `/core/v2/comments?${query(b)}`, { as: as ? b[as] : undefined });
      return {
        status: response.status,
        contents: response.status === 200 ? ids(response).map((id) => b.byContent.get(id)!) : [response.body.code],
        total: response.headers.get('x-wp-total'),
        pages: response.headers.get('x-wp-totalpages'),
        link: response.headers.get('link')?.replace(b.t.url, '') ?? null,
      };
    }),
  );
  assert.equal(results[1], results[0], 'memory and Redis disagree');
  return results[0]!;
}

lists('approved comments newest first by default; held and spam only on request, by those who may', async () => {
  assert.equal((await listed(() => '')).contents, ['Damson apple', 'Banana', 'Apple']);
  assert.equal((await listed(() => 'status=hold', 'admin')).contents, ['Cherry held']);
  assert.equal((await listed(() => 'status=spam', 'admin')).contents, ['Elder spam']);
  assert.equal((await listed(() => 'status=all', 'admin')).contents, [
    'Damson apple',
    'Cherry held',
    'Banana',
    'Apple',
  ]);
  const forbidden = await listed(() => 'status=hold&author=1', 'subscriber');
  assert.equal(forbidden.contents, ['rest_forbidden_param']);
  assert.equal((await listed(() => 'context=edit', 'subscriber')).contents, ['rest_forbidden_context']);
});

lists('filters: post, parent, author, search, include/exclude; order and paging with headers', async () => {
  assert.equal((await listed((b) => `post=${b.posts[1]}`)).contents, ['Damson apple']);
  assert.equal((await listed((b) => `parent=${[...b.byContent.keys()][0]}`)).contents, ['Banana']);
  assert.equal((await listed(() => 'parent=0&order=asc')).contents, ['Apple', 'Damson apple']);
  assert.equal((await listed((b) => `author=${b.editor.id}`, 'admin')).contents, ['Banana']);
  assert.equal((await listed(() => 'search=apple&orderby=id&order=asc')).contents, ['Apple', 'Damson apple']);
  assert.equal((await listed((b) => `exclude=${[...b.byContent.keys()][0]}`)).contents, ['Damson apple', 'Banana']);
  const page = await listed(() => 'per_page=2&page=2');
  assert.equal(
    [page.contents, page.total, page.pages, page.link],
    [['Apple'], '3', '2', '</core/v2/comments?per_page=2&page=1>; rel="prev"'],
  );
  const first = await listed(() => 'per_page=2');
  assert.is(first.link, '</core/v2/comments?per_page=2&page=2>; rel="next"');
  // Past the last page WordPress answers an empty page (no error), as for comments it does.
  assert.equal((await listed(() => 'per_page=2&page=9')).contents, []);
});

lists('author_exclude leaves out comments by those users; like author it takes edit_posts, and integers', async () => {
  assert.equal((await listed((b) => `author_exclude=${b.editor.id}&orderby=id&order=asc`, 'admin')).contents, [
    'Apple',
    'Damson apple',
  ]);
  assert.equal(
    (await listed((b) => `author_exclude[]=${b.editor.id}&author_exclude[]=${b.admin.id}`, 'admin')).contents,
    [],
  );
  assert.equal((await listed((b) => `author=${b.admin.id}&author_exclude=${b.admin.id}`, 'admin')).contents, []);
  assert.equal(
    (await listed((b) => `status=all&author_exclude=${b.admin.id}&orderby=id&order=asc`, 'admin')).contents,
    ['Banana', 'Cherry held'],
  );
  assert.equal((await listed((b) => `author_exclude=${b.admin.id}`, 'subscriber')).contents, ['rest_forbidden_param']);
  assert.equal((await listed(() => 'author_exclude=abc', 'admin')).contents, ['rest_invalid_param']);
});

/** The arguments of WordPress 6.1's comments collection, with their types and defaults (reference index, `/wp-json/`). */
const REFERENCE_ARGS = {
  GET: {
    context: ['string', 'view'],
    page: ['integer', 1],
    per_page: ['integer', 10],
    search: ['string'],
    after: ['string'],
    author: ['array'],
    author_exclude: ['array'],
    author_email: ['string', null],
    before: ['string'],
    exclude: ['array', []],
    include: ['array', []],
    offset: ['integer'],
    order: ['string', 'desc'],
    orderby: ['string', 'date_gmt'],
    parent: ['array', []],
    parent_exclude: ['array', []],
    post: ['array', []],
    status: ['string', 'approve'],
    type: ['string', 'comment'],
    password: ['string'],
  },
  POST: {
    author: ['integer'],
    author_email: ['string'],
    author_ip: ['string'],
    author_name: ['string'],
    author_url: ['string'],
    author_user_agent: ['string'],
    content: ['object'],
    date: ['string'],
    date_gmt: ['string'],
    parent: ['integer', 0],
    post: ['integer', 0],
    status: ['string'],
    meta: ['object'],
  },
};

lists("the collection route lists WordPress's arguments, in its order, with its types and defaults", async () => {
  const index = await backends[0]!.t.request('GET', '/wp-json/');
  const route = index.body.routes['/wp/v2/comments'];
  for (const endpoint of route.endpoints as {
    methods: string[];
    args: Record<string, { type: string; default?: unknown }>;
  }[]) {
    const ours = Object.fromEntries(
      Object.entries(endpoint.args).map(([name, arg]) => [
        name,
        'default' in arg ? [arg.type, arg.default] : [arg.type],
      ]),
    );
    assert.equal(ours, REFERENCE_ARGS[endpoint.methods[0] as 'GET' | 'POST']);
    assert.equal(Object.keys(ours), Object.keys(REFERENCE_ARGS[endpoint.methods[0] as 'GET' | 'POST']));
  }
});

lists.run();
