/** Given events / when command / then events: WordPress's write rules, without any I/O. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { contentDecider, initialContentState, resolveSchedule } from '../../src/resources/content/decider';
import type { ContentState, PostInput } from '../../src/resources/content/decider';
import type { ContentEvent, PostCreated, PostUpdated } from '../../src/resources/content/events';
import { rejectsWith } from '../support/domainErrors';

const NOW = Date.parse('2024-05-01T12:00:00Z');
const ctx = { actorId: 1, now: NOW, timezone: 'UTC' };
const test = suite('content decider');

function given(events: ContentEvent[]): ContentState {
  return events.reduce(contentDecider.evolve, initialContentState());
}

const rejects = rejectsWith;

const create = (input: PostInput, slug = ''): ContentEvent[] =>
  contentDecider.decide({ kind: 'create', id: 7, postType: 'post', input, slug, ...ctx }, initialContentState());

test('a new post defaults to a floating draft by the actor, open to comments, in no category yet', () => {
  const [event] = create({ title: 'Hello' });
  assert.is(event!.type, 'PostCreated');
  const { post } = event!.data as PostCreated;
  assert.is(post.status, 'draft');
  assert.is(post.author, 1);
  assert.is(post.date, '2024-05-01T12:00:00');
  assert.is(post.date_gmt, null);
  assert.is(post.modified, '2024-05-01T12:00:00');
  assert.is(post.comment_status, 'open');
  assert.is(post.ping_status, 'open');
  assert.is(post.format, 'standard');
  assert.equal(post.meta, { footnotes: '' });
});

test('pages are closed to comments and pings by default, and may be empty', () => {
  const [event] = contentDecider.decide(
    { kind: 'create', id: 8, postType: 'page', input: {}, slug: '', ...ctx },
    initialContentState(),
  );
  const { post } = event!.data as PostCreated;
  assert.is(post.comment_status, 'closed');
  assert.is(post.ping_status, 'closed');
});

test('a post with no title, content or excerpt is refused', () => {
  rejects(() => create({}), {
    code: 'invalid_value',
    subject: 'post',
    fields: ['title', 'content', 'excerpt'],
    rule: 'empty',
  });
  rejects(() => create({ title: '', content: '', excerpt: '' }), {
    code: 'invalid_value',
    subject: 'post',
    fields: ['title', 'content', 'excerpt'],
    rule: 'empty',
  });
});

test('publish dated a minute or more ahead becomes future; future not ahead becomes publish', () => {
  const future = create({ title: 'x', status: 'publish', date: '2024-05-01T12:01:00' });
  assert.is((future[0]!.data as PostCreated).post.status, 'future');
  const almost = create({ title: 'x', status: 'publish', date: '2024-05-01T12:00:59' });
  assert.is((almost[0]!.data as PostCreated).post.status, 'publish');
  const past = create({ title: 'x', status: 'future', date: '2020-01-01T00:00:00' });
  assert.is((past[0]!.data as PostCreated).post.status, 'publish');
});

test('dates: local time in the site zone, offsets converted, date wins over date_gmt', () => {
  const zone = { ...ctx, timezone: 'America/New_York' };
  const local = resolveSchedule({ date: '2016-12-12T14:00:00' }, null, zone);
  assert.equal([local.date, local.date_gmt], ['2016-12-12T14:00:00', '2016-12-12T19:00:00']);
  const gmt = resolveSchedule({ date_gmt: '2016-12-12T19:00:00' }, null, zone);
  assert.equal([gmt.date, gmt.date_gmt], ['2016-12-12T14:00:00', '2016-12-12T19:00:00']);
  const offset = resolveSchedule({ date: '2016-12-12T18:00:00-01:00' }, null, zone);
  assert.equal([offset.date, offset.date_gmt], ['2016-12-12T14:00:00', '2016-12-12T19:00:00']);
  const both = resolveSchedule({ date: '2016-12-12T14:00:00', date_gmt: '2000-01-01T00:00:00' }, null, zone);
  assert.is(both.date_gmt, '2016-12-12T19:00:00');
});

test('an invalid date is a 400 rest_invalid_param', () => {
  rejects(() => create({ title: 'x', date: '2010-60-01T02:00:00' }), {
    code: 'invalid_value',
    subject: 'post',
    fields: ['date'],
    rule: 'unparsable',
  });
});

test('private clears the password; sticky and a password conflict', () => {
  const [event] = create({ title: 'x', status: 'private', password: 'secret' });
  assert.is((event!.data as PostCreated).post.password, '');
  rejects(() => create({ title: 'x', password: 'secret', sticky: true }), {
    code: 'invalid_value',
    subject: 'post',
    fields: ['sticky', 'password'],
    rule: 'conflicting',
  });
});

test('the first update always makes a revision; later ones only when title, content or excerpt change', () => {
  const state = given(create({ title: 'One', status: 'publish' }, 'one'));
  const first = contentDecider.decide(
    { kind: 'update', id: 7, postType: 'post', input: {}, slug: 'one', revisionId: 20, ...ctx },
    state,
  );
  assert.equal(
    first.map((e) => e.type),
    ['PostUpdated', 'PostRevised'],
  );
  const afterFirst = first.reduce(contentDecider.evolve, state);
  const same = contentDecider.decide(
    {
      kind: 'update',
      id: 7,
      postType: 'post',
      input: { comment_status: 'closed' },
      slug: 'one',
      revisionId: 21,
      ...ctx,
    },
    afterFirst,
  );
  assert.equal(
    same.map((e) => e.type),
    ['PostUpdated'],
  );
  const changed = contentDecider.decide(
    { kind: 'update', id: 7, postType: 'post', input: { title: 'Two' }, slug: 'one', revisionId: 21, ...ctx },
    afterFirst,
  );
  assert.equal(
    changed.map((e) => e.type),
    ['PostUpdated', 'PostRevised'],
  );
});

test('an update records only the fields that changed, and always the modification time', () => {
  const state = given(create({ title: 'One', status: 'publish' }, 'one'));
  const later = { ...ctx, now: NOW + 3_600_000 };
  const [updated] = contentDecider.decide(
    {
      kind: 'update',
      id: 7,
      postType: 'post',
      input: { title: 'One', excerpt: 'New' },
      slug: 'one',
      revisionId: null,
      ...later,
    },
    state,
  );
  assert.equal(Object.keys((updated!.data as PostUpdated).changes).sort(), ['excerpt', 'modified', 'modified_gmt']);
});

test('a floating draft follows its modification time until its date is fixed', () => {
  const state = given(create({ title: 'Draft' }));
  const later = { ...ctx, now: NOW + 86_400_000 };
  const [updated] = contentDecider.decide(
    { kind: 'update', id: 7, postType: 'post', input: { content: 'more' }, slug: '', revisionId: null, ...later },
    state,
  );
  assert.is((updated!.data as PostUpdated).changes.date, '2024-05-02T12:00:00');
  const [published] = contentDecider.decide(
    {
      kind: 'update',
      id: 7,
      postType: 'post',
      input: { status: 'publish' },
      slug: 'draft',
      revisionId: null,
      ...later,
    },
    state,
  );
  assert.is((published!.data as PostUpdated).changes.date_gmt, '2024-05-02T12:00:00');
});

test('trashing renames the slug, twice is 410, and unknown or other-type items are 404', () => {
  const state = given(create({ title: 'One', status: 'publish' }, 'one'));
  const trashed = contentDecider.decide({ kind: 'trash', id: 7, postType: 'post', revisionId: null, ...ctx }, state);
  assert.is(trashed[0]!.type, 'PostTrashed');
  const after = trashed.reduce(contentDecider.evolve, state);
  assert.is(after.post!.slug, 'one__trashed');
  assert.is(after.post!.status, 'trash');
  assert.is(after.trashedFrom, 'publish');
  rejects(() => contentDecider.decide({ kind: 'trash', id: 7, postType: 'post', revisionId: null, ...ctx }, after), {
    code: 'invalid_transition',
    subject: 'post',
    from: 'trash',
    to: 'trash',
  });
  rejects(() => contentDecider.decide({ kind: 'delete', id: 7, postType: 'page' }, state), {
    code: 'not_found',
    subject: 'post',
  });
  rejects(() => contentDecider.decide({ kind: 'delete', id: 9, postType: 'post' }, initialContentState()), {
    code: 'not_found',
    subject: 'post',
  });
});

test('an existing stream cannot be created again', () => {
  const state = given(create({ title: 'One' }));
  rejects(
    () =>
      contentDecider.decide(
        { kind: 'create', id: 7, postType: 'post', input: { title: 'x' }, slug: '', ...ctx },
        state,
      ),
    { code: 'already_exists', subject: 'post', by: 'id' },
  );
});

test.run();
