/**
 * A post's comments follow it: hidden (`post-trashed`) while it is in the trash, back to their statuses when it
 * leaves the trash, and deleted with it. Checked on both read models, through the API and through each comment's
 * own stream (the audit log). The statuses and codes are the reference WordPress 6.1's for the same steps.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestResponse, TestSite, TestUser } from '../support/testSite';
import { testRedisReadModel } from '../support/redis';

const expectError = (response: TestResponse, status: number, code: string) => {
  assert.is(response.status, status, JSON.stringify(response.body));
  assert.is(response.body.code, code);
};

for (const backend of ['memory', 'redis'] as const) {
  const test = suite(`comments with their post (${backend} read model)`);
  let t: TestSite;
  let cleanup: () => Promise<void>;
  let admin: TestUser;
  let editor: TestUser;
  let subscriber: TestUser;

  test.before.each(async () => {
    const redis = backend === 'redis' ? testRedisReadModel() : null;
    t = await startTestSite({ readModel: redis?.readModel });
    cleanup = async () => {
      await t.close();
      await redis?.cleanup();
    };
    admin = await t.createUser('admin', 'administrator');
    editor = await t.createUser('editor', 'editor');
    subscriber = await t.createUser('subscriber', 'subscriber');
  });
  test.after.each(async () => cleanup());

  const post = async (type: 'posts' | 'pages' = 'posts'): Promise<number> => {
    const made = await t.request('POST', `/core/v2/${type}`, {
      as: admin,
      body: { title: 'With comments', status: 'publish', comment_status: 'open' },
    });
    assert.is(made.status, 201);
    return made.body.id;
  };
  const comment = async (as: TestUser, body: Record<string, unknown>): Promise<number> => {
    const made = await t.request('POST', '/core/v2/comments', { as, body });
    assert.is(made.status, 201, JSON.stringify(made.body));
    return made.body.id;
  };
  const list = async (query: string, as?: TestUser) => {
    const response = await t.request('GET', `/core/v2/comments?${query}`, { as });
    return {
      status: response.status,
      ids:
        response.status === 200
          ? (response.body as { id: number }[]).map((c) => c.id).sort((a, b) => a - b)
          : response.body.code,
      total: response.headers.get('x-wp-total'),
    };
  };
  const statusOf = async (id: number) =>
    (await t.request('GET', `/core/v2/comments/${id}?context=edit`, { as: admin })).body.status;
  /** A stream's events, newest first. */
  const events = async (stream: string) =>
    (await t.request('GET', `/audit/v1/events?stream=${stream}`, { as: admin })).body as {
      type: string;
      user: number;
      request_id: string;
      data: any;
    }[];

  test('trashing the post hides every comment (post-trashed); leaving the trash gives each its status back', async () => {
    const p = await post();
    const other = await post();
    const approved = await comment(admin, { post: p, content: 'Approved' });
    const held = await comment(admin, { post: p, content: 'Held', status: 'hold' });
    const spam = await comment(admin, { post: p, content: 'Spam', status: 'spam' });
    const trashed = await comment(admin, { post: p, content: 'Trashed', status: 'trash' });
    const reply = await comment(editor, { post: p, content: 'Reply', parent: approved });
    const own = await comment(subscriber, { post: p, content: 'Mine, held' });
    const elsewhere = await comment(admin, { post: other, content: 'Elsewhere' });
    const all = [approved, held, spam, trashed, reply, own];
    assert.equal(await list(`post=${p}`), { status: 200, ids: [approved, reply], total: '2' });

    const trash = await t.request('DELETE', `/core/v2/posts/${p}`, { as: admin });
    assert.is(trash.status, 200);
    for (const id of all) assert.is(await statusOf(id), 'post-trashed');
    assert.is(await statusOf(elsewhere), 'approved');
    // Reference: anonymous readers lose the post, and with it its comments; moderators find them by that status.
    expectError(await t.request('GET', `/core/v2/comments?post=${p}`), 401, 'rest_cannot_read_post');
    expectError(await t.request('GET', `/core/v2/comments/${approved}`), 401, 'rest_cannot_read');
    assert.equal(await list(''), { status: 200, ids: [elsewhere], total: '1' });
    assert.equal(await list(`post=${p}&status=all`, admin), { status: 200, ids: [], total: '0' });
    assert.equal(await list(`post=${p}&status=post-trashed`, admin), { status: 200, ids: all, total: '6' });
    // Reference: its own author may no longer read it either, since it may not read the post.
    expectError(await t.request('GET', `/core/v2/comments/${own}`, { as: subscriber }), 403, 'rest_cannot_read_post');
    expectError(
      await t.request('POST', '/core/v2/comments', { as: admin, body: { post: p, content: 'Too late' } }),
      403,
      'rest_comment_trash_post',
    );

    // Each comment's stream says what happened to it, in the request that trashed the post, by its user.
    const [postTrashed] = (await events(`content-${p}`)).filter((e) => e.type === 'PostTrashed');
    const history = await events(`comment-${spam}`);
    const hidden = history.find((e) => e.type === 'CommentPostTrashed')!;
    assert.equal(
      [hidden.user, hidden.request_id, hidden.data],
      [admin.id, postTrashed!.request_id, { id: spam, post: p, previousStatus: 'spam' }],
    );

    const restored = await t.request('POST', `/core/v2/posts/${p}`, { as: admin, body: { status: 'publish' } });
    assert.is(restored.status, 200);
    assert.equal(await Promise.all(all.map(statusOf)), ['approved', 'hold', 'spam', 'trash', 'approved', 'hold']);
    assert.equal(await list(`post=${p}`), { status: 200, ids: [approved, reply], total: '2' });
    assert.equal(await list(`post=${p}&status=post-trashed`, admin), { status: 200, ids: [], total: '0' });
    const back = (await events(`comment-${spam}`)).find((e) => e.type === 'CommentPostRestored')!;
    assert.equal(
      [back.request_id, back.data],
      [
        (await events(`content-${p}`)).find((e) => e.type === 'PostUpdated')!.request_id,
        { id: spam, post: p, status: 'spam' },
      ],
    );
    // The trashed comment still remembers where it came from.
    const untrashed = await t.request('POST', `/core/v2/comments/${trashed}`, {
      as: admin,
      body: { status: 'untrash' },
    });
    assert.is(untrashed.body.status, 'approved');
  });

  test('a status given while the post is in the trash is replaced by the remembered one, as WordPress restores', async () => {
    const p = await post();
    const held = await comment(admin, { post: p, content: 'Held', status: 'hold' });
    await t.request('DELETE', `/core/v2/posts/${p}`, { as: admin });
    const approved = await t.request('POST', `/core/v2/comments/${held}`, { as: editor, body: { status: 'approve' } });
    assert.is(approved.body.status, 'approved');
    await t.request('POST', `/core/v2/posts/${p}`, { as: admin, body: { status: 'draft' } });
    assert.is(await statusOf(held), 'hold');
  });

  test('deleting the post for good deletes its comments, from the trash or directly; others stay', async () => {
    const p = await post();
    const q = await post();
    const page = await post('pages');
    const onP = [
      await comment(admin, { post: p, content: 'One' }),
      await comment(admin, { post: p, content: 'Two', status: 'hold' }),
    ];
    const onQ = await comment(admin, { post: q, content: 'On Q' });
    const onPage = await comment(admin, { post: page, content: 'On the page' });
    const stays = await comment(admin, { post: await post(), content: 'Stays' });

    await t.request('DELETE', `/core/v2/posts/${p}`, { as: admin });
    const deleted = await t.request('DELETE', `/core/v2/posts/${p}?force=true`, { as: admin });
    assert.is(deleted.status, 200);
    for (const id of onP)
      expectError(await t.request('GET', `/core/v2/comments/${id}`, { as: admin }), 404, 'rest_comment_invalid_id');
    assert.equal(await list(`post=${p}&status=post-trashed`, admin), { status: 200, ids: [], total: '0' });
    // The audit log lists the newest first.
    const last = (await events(`comment-${onP[1]}`))[0]!;
    assert.equal([last.type, last.data], ['CommentDeleted', { id: onP[1], post: p, withPost: true }]);
    // A comment that goes with its post cannot be written to any more.
    expectError(
      await t.request('POST', `/core/v2/comments/${onP[0]}`, { as: admin, body: { content: 'Back?' } }),
      404,
      'rest_comment_invalid_id',
    );

    assert.is((await t.request('DELETE', `/core/v2/posts/${q}?force=true`, { as: admin })).status, 200);
    expectError(await t.request('GET', `/core/v2/comments/${onQ}`, { as: admin }), 404, 'rest_comment_invalid_id');
    assert.is((await t.request('DELETE', `/core/v2/pages/${page}?force=true`, { as: admin })).status, 200);
    expectError(await t.request('GET', `/core/v2/comments/${onPage}`, { as: admin }), 404, 'rest_comment_invalid_id');
    assert.equal(await list('status=all', admin), { status: 200, ids: [stays], total: '1' });
  });

  test("a user deleted without an heir takes their posts' comments to the trash with the posts", async () => {
    const author = await t.createUser('leaving', 'author');
    const made = await t.request('POST', '/core/v2/posts', {
      as: author,
      body: { title: 'Theirs', status: 'publish' },
    });
    const on = await comment(admin, { post: made.body.id, content: 'On their post' });
    const gone = await t.request('DELETE', `/core/v2/users/${author.id}?force=true&reassign=false`, { as: admin });
    assert.is(gone.status, 200, JSON.stringify(gone.body));
    assert.is(await statusOf(on), 'post-trashed');
  });

  test.run();
}
