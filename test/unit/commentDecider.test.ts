/** The comment decider: given earlier events, when a command, then these events or this error. Pure, no site. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { commentDecider, statusRequest } from '../../src/resources/comments/decider';
import type { CommentCommand, CommentState, CreateFacts } from '../../src/resources/comments/decider';
import type { CommentEvent, CommentFields } from '../../src/resources/comments/events';
import { rejectsWith } from '../support/domainErrors';

const FIELDS: Omit<CommentFields, 'status' | 'status_before'> = {
  post: 5,
  parent: 0,
  author: 3,
  author_name: 'Sam',
  author_email: 'sam@example.test',
  author_url: '',
  author_ip: '127.0.0.1',
  author_user_agent: 'ua',
  date: '2024-05-01T12:00:00',
  date_gmt: '2024-05-01T12:00:00',
  content: 'Hello',
  type: 'comment',
};
const FACTS: CreateFacts = {
  trusted: false,
  previouslyApproved: false,
  duplicateOf: null,
  parentOnPost: true,
  requireNameEmail: true,
  flood: { exempt: false, latestAt: null, intervalMs: 15_000 },
};
const create = (over: Partial<Extract<CommentCommand, { kind: 'create' }>> = {}): CommentCommand => ({
  kind: 'create',
  id: 9,
  fields: FIELDS,
  status: null,
  facts: FACTS,
  ...over,
});

const given = (events: CommentEvent[]): CommentState =>
  events.reduce(commentDecider.evolve, commentDecider.initialState());
const statusAfter = (commands: CommentCommand[]): string | undefined => {
  let state = commentDecider.initialState();
  for (const command of commands) state = commentDecider.decide(command, state).reduce(commentDecider.evolve, state);
  return state.comment?.status;
};
const rejects = rejectsWith;

test('a trusted writer (moderator or the post author) is approved at once; others are held', () => {
  const [trusted] = commentDecider.decide(
    create({ facts: { ...FACTS, trusted: true } }),
    commentDecider.initialState(),
  );
  assert.is((trusted!.data as { comment: CommentFields }).comment.status, 'approved');
  const [held] = commentDecider.decide(create(), commentDecider.initialState());
  assert.is(held!.type, 'CommentCreated');
  assert.is((held!.data as { comment: CommentFields }).comment.status, 'hold');
});

test('a previously approved author is approved, unless the comment has too many links', () => {
  assert.is(statusAfter([create({ facts: { ...FACTS, previouslyApproved: true } })]), 'approved');
  const links = '<a href="https://a.test">a</a> <a href="https://b.test">b</a>';
  assert.is(
    statusAfter([create({ fields: { ...FIELDS, content: links }, facts: { ...FACTS, previouslyApproved: true } })]),
    'hold',
  );
});

test("a moderator's explicit status wins over the approval rules", () => {
  assert.is(statusAfter([create({ facts: { ...FACTS, trusted: true }, status: 'hold' })]), 'hold');
  assert.is(statusAfter([create({ status: 'spam' })]), 'spam');
});

test('blank content, a duplicate and a parent on another post are refused', () => {
  rejects(
    () => commentDecider.decide(create({ fields: { ...FIELDS, content: ' \n' } }), commentDecider.initialState()),
    { code: 'invalid_value', subject: 'comment', fields: ['content'], rule: 'empty' },
  );
  rejects(() => commentDecider.decide(create({ facts: { ...FACTS, duplicateOf: 4 } }), commentDecider.initialState()), {
    code: 'already_exists',
    subject: 'comment',
    by: 'content',
    details: { existingId: 4 },
  });
  rejects(
    () =>
      commentDecider.decide(
        create({ fields: { ...FIELDS, parent: 2 }, facts: { ...FACTS, parentOnPost: false } }),
        commentDecider.initialState(),
      ),
    { code: 'invalid_value', subject: 'comment', fields: ['parent'], rule: 'unknownReference' },
  );
  rejects(
    () => commentDecider.decide(create(), given(commentDecider.decide(create(), commentDecider.initialState()))),
    { code: 'already_exists', subject: 'comment', by: 'id' },
  );
});

test('trash remembers the status it came from; untrash restores it; trashing twice is refused (410)', () => {
  const approved = create({ facts: { ...FACTS, trusted: true } });
  assert.is(statusAfter([approved, { kind: 'trash', id: 9 }]), 'trash');
  assert.is(
    statusAfter([
      approved,
      { kind: 'trash', id: 9 },
      { kind: 'update', id: 9, changes: {}, status: 'untrash', parentOnPost: true },
    ]),
    'approved',
  );
  assert.is(
    statusAfter([
      create(),
      { kind: 'update', id: 9, changes: {}, status: 'spam', parentOnPost: true },
      { kind: 'update', id: 9, changes: {}, status: 'unspam', parentOnPost: true },
    ]),
    'hold',
  );
  let state = commentDecider.initialState();
  for (const c of [approved, { kind: 'trash', id: 9 } as CommentCommand])
    state = commentDecider.decide(c, state).reduce(commentDecider.evolve, state);
  rejects(() => commentDecider.decide({ kind: 'trash', id: 9 }, state), {
    code: 'invalid_transition',
    subject: 'comment',
    from: 'trash',
    to: 'trash',
  });
});

test('an update records only what changed; no change records nothing; an unknown comment is 404', () => {
  let state = commentDecider.initialState();
  state = commentDecider.decide(create(), state).reduce(commentDecider.evolve, state);
  assert.equal(
    commentDecider.decide(
      { kind: 'update', id: 9, changes: { content: 'Hello' }, status: null, parentOnPost: true },
      state,
    ),
    [],
  );
  assert.equal(
    commentDecider.decide(
      { kind: 'update', id: 9, changes: { content: 'Bye', author_name: 'Sam' }, status: 'approve', parentOnPost: true },
      state,
    ),
    [{ type: 'CommentUpdated', data: { id: 9, changes: { content: 'Bye', status: 'approved' } } }],
  );
  rejects(
    () =>
      commentDecider.decide(
        { kind: 'update', id: 9, changes: { content: '' }, status: null, parentOnPost: true },
        state,
      ),
    { code: 'invalid_value', subject: 'comment', fields: ['content'], rule: 'empty' },
  );
  rejects(() => commentDecider.decide({ kind: 'delete', id: 9 }, commentDecider.initialState()), {
    code: 'not_found',
    subject: 'comment',
  });
  assert.equal(commentDecider.decide({ kind: 'delete', id: 9 }, state), [
    { type: 'CommentDeleted', data: { id: 9, post: 5 } },
  ]);
});

const refusedWith = (command: CommentCommand, expected: Parameters<typeof rejectsWith>[1]) =>
  rejects(() => commentDecider.decide(command, commentDecider.initialState()), expected);
const flood = (over: Partial<CreateFacts['flood']>): CreateFacts => ({ ...FACTS, flood: { ...FACTS.flood, ...over } });
/** FIELDS.date_gmt in ms. */
const NOW = Date.parse('2024-05-01T12:00:00Z');

test("flood: a comment dated less than the interval after the writer's latest is refused; at the interval it is taken", () => {
  refusedWith(create({ facts: flood({ latestAt: NOW - 14_000 }) }), {
    code: 'forbidden',
    subject: 'comment',
    rule: 'flood',
  });
  assert.is(statusAfter([create({ facts: flood({ latestAt: NOW - 15_000 }) })]), 'hold');
  // A latest comment dated after the new one (dated ahead by its writer) holds the writer back too.
  refusedWith(create({ facts: flood({ latestAt: NOW + 60_000 }) }), {
    code: 'forbidden',
    subject: 'comment',
    rule: 'flood',
  });
  assert.is(statusAfter([create({ facts: flood({ latestAt: null }) })]), 'hold');
  assert.is(statusAfter([create({ facts: flood({ latestAt: NOW, exempt: true }) })]), 'hold');
  assert.is(statusAfter([create({ facts: flood({ latestAt: NOW, intervalMs: 0 }) })]), 'hold');
  refusedWith(create({ facts: flood({ latestAt: NOW - 59_000, intervalMs: 60_000 }) }), {
    code: 'forbidden',
    subject: 'comment',
    rule: 'flood',
  });
});

test("the order of the refusals is WordPress's: text, name and email, lengths, (parent), duplicate, flood", () => {
  const everything = { ...FACTS, duplicateOf: 3, parentOnPost: false, flood: { ...FACTS.flood, latestAt: NOW } };
  const nameless = { ...FIELDS, author_name: '', parent: 2, content: 'x'.repeat(65_526) };
  refusedWith(create({ fields: { ...nameless, content: ' ' }, facts: everything }), {
    code: 'invalid_value',
    subject: 'comment',
    fields: ['content'],
    rule: 'empty',
  });
  refusedWith(create({ fields: nameless, facts: everything }), {
    code: 'invalid_value',
    subject: 'comment',
    fields: ['author_name', 'author_email'],
    rule: 'required',
  });
  refusedWith(create({ fields: { ...nameless, author_name: 'Sam' }, facts: everything }), {
    code: 'invalid_value',
    subject: 'comment',
    fields: ['content'],
    rule: 'tooLong',
  });
  refusedWith(create({ fields: { ...FIELDS, parent: 2 }, facts: everything }), {
    code: 'invalid_value',
    subject: 'comment',
    fields: ['parent'],
    rule: 'unknownReference',
  });
  refusedWith(create({ facts: everything }), {
    code: 'already_exists',
    subject: 'comment',
    by: 'content',
    details: { existingId: 3 },
  });
  refusedWith(create({ facts: { ...everything, duplicateOf: null } }), {
    code: 'forbidden',
    subject: 'comment',
    rule: 'flood',
  });
});

test('require_name_email: both are needed when on; either may be missing when off', () => {
  refusedWith(create({ fields: { ...FIELDS, author_email: '' } }), {
    code: 'invalid_value',
    subject: 'comment',
    fields: ['author_name', 'author_email'],
    rule: 'required',
  });
  refusedWith(create({ fields: { ...FIELDS, author_name: '' } }), {
    code: 'invalid_value',
    subject: 'comment',
    fields: ['author_name', 'author_email'],
    rule: 'required',
  });
  assert.is(
    statusAfter([create({ fields: { ...FIELDS, author_email: '' }, facts: { ...FACTS, requireNameEmail: false } })]),
    'hold',
  );
});

test('lengths are counted in UTF-8 bytes, on create and update', () => {
  const cases: [Partial<typeof FIELDS>, string][] = [
    [{ author_name: 'é'.repeat(123) }, 'author_name'],
    [{ author_email: `${'a'.repeat(94)}@x.test` }, 'author_email'],
    [{ author_url: `https://x.test/${'a'.repeat(186)}` }, 'author_url'],
    [{ content: '€'.repeat(21_842) }, 'content'],
  ];
  let state = commentDecider.initialState();
  state = commentDecider.decide(create(), state).reduce(commentDecider.evolve, state);
  for (const [over, field] of cases) {
    const tooLong = { code: 'invalid_value', subject: 'comment', fields: [field], rule: 'tooLong' } as const;
    refusedWith(create({ fields: { ...FIELDS, ...over } }), tooLong);
    rejects(
      () => commentDecider.decide({ kind: 'update', id: 9, changes: over, status: null, parentOnPost: true }, state),
      tooLong,
    );
  }
  assert.is(
    statusAfter([create({ fields: { ...FIELDS, author_name: 'é'.repeat(122), content: '€'.repeat(21_841) } })]),
    'hold',
  );
});

test('what was sent is judged for name, email and lengths; what is stored for lengths and emptiness too', () => {
  // A name of markup only is a name as sent (WordPress's rule), though stored empty.
  assert.is(
    statusAfter([
      create({
        fields: { ...FIELDS, author_name: '' },
        sent: { author_name: '<b></b>', author_email: FIELDS.author_email, content: 'Hello' },
      }),
    ]),
    'hold',
  );
  refusedWith(create({ sent: { author_name: 'Sam', author_email: '', content: 'Hello' } }), {
    code: 'invalid_value',
    subject: 'comment',
    fields: ['author_name', 'author_email'],
    rule: 'required',
  });
  // Sent too long, stored short (the filter dropped the markup): refused as WordPress refuses it.
  refusedWith(create({ sent: { ...FIELDS, content: `<i>${'x'.repeat(65_520)}</i>` } }), {
    code: 'invalid_value',
    subject: 'comment',
    fields: ['content'],
    rule: 'tooLong',
  });
  // Sent short enough, stored longer than the column (escaping lengthened it): refused too.
  refusedWith(
    create({
      fields: { ...FIELDS, author_name: '&amp;'.repeat(50) },
      sent: { ...FIELDS, author_name: '&'.repeat(50) },
    }),
    { code: 'invalid_value', subject: 'comment', fields: ['author_name'], rule: 'tooLong' },
  );
  // Nothing left after the filters is no text.
  refusedWith(create({ fields: { ...FIELDS, content: '' }, sent: { ...FIELDS, content: '<script></script>' } }), {
    code: 'invalid_value',
    subject: 'comment',
    fields: ['content'],
    rule: 'empty',
  });
  let state = commentDecider.initialState();
  state = commentDecider.decide(create(), state).reduce(commentDecider.evolve, state);
  rejects(
    () =>
      commentDecider.decide(
        {
          kind: 'update',
          id: 9,
          changes: { content: 'short' },
          sent: { content: 'x'.repeat(65_526) },
          status: null,
          parentOnPost: true,
        },
        state,
      ),
    { code: 'invalid_value', subject: 'comment', fields: ['content'], rule: 'tooLong' },
  );
});

test("a post's trash hides the comment and remembers its status; the restore gives it back; idempotent both ways", () => {
  const approved = given(
    commentDecider.decide(create({ facts: { ...FACTS, trusted: true } }), commentDecider.initialState()),
  );
  const trashed = commentDecider.decide({ kind: 'postTrashed', id: 9, post: 5 }, approved);
  assert.equal(trashed, [{ type: 'CommentPostTrashed', data: { id: 9, post: 5, previousStatus: 'approved' } }]);
  const hidden = trashed.reduce(commentDecider.evolve, approved);
  assert.is(hidden.comment!.status, 'post-trashed');
  assert.equal(commentDecider.decide({ kind: 'postTrashed', id: 9, post: 5 }, hidden), []);
  // Another post's trash leaves it alone.
  assert.equal(commentDecider.decide({ kind: 'postTrashed', id: 9, post: 6 }, approved), []);
  // A status set meanwhile gives way to the remembered one, as WordPress restores from the post's memory.
  const held = commentDecider
    .decide({ kind: 'update', id: 9, changes: {}, status: 'hold', parentOnPost: true }, hidden)
    .reduce(commentDecider.evolve, hidden);
  const restore = commentDecider.decide({ kind: 'postRestored', id: 9 }, held);
  assert.equal(restore, [{ type: 'CommentPostRestored', data: { id: 9, post: 5, status: 'approved' } }]);
  const back = restore.reduce(commentDecider.evolve, held);
  assert.equal([back.comment!.status, back.postTrashedFrom], ['approved', null]);
  assert.equal(commentDecider.decide({ kind: 'postRestored', id: 9 }, back), []);
  // A comment trashed on its own before the post keeps its way back out of the trash.
  const own = commentDecider.decide({ kind: 'trash', id: 9 }, approved).reduce(commentDecider.evolve, approved);
  const both = commentDecider.decide({ kind: 'postTrashed', id: 9, post: 5 }, own).reduce(commentDecider.evolve, own);
  const after = commentDecider.decide({ kind: 'postRestored', id: 9 }, both).reduce(commentDecider.evolve, both);
  assert.equal([after.comment!.status, after.comment!.status_before], ['trash', 'approved']);
});

test('deleted with its post: recorded as such; nothing to record for a comment already gone', () => {
  const state = given(commentDecider.decide(create(), commentDecider.initialState()));
  assert.equal(commentDecider.decide({ kind: 'delete', id: 9, withPost: true }, state), [
    { type: 'CommentDeleted', data: { id: 9, post: 5, withPost: true } },
  ]);
  const gone = given([
    ...commentDecider.decide(create(), commentDecider.initialState()),
    { type: 'CommentDeleted', data: { id: 9, post: 5 } },
  ]);
  assert.equal(commentDecider.decide({ kind: 'delete', id: 9, withPost: true }, gone), []);
  assert.equal(commentDecider.decide({ kind: 'postTrashed', id: 9, post: 5 }, gone), []);
  assert.equal(commentDecider.decide({ kind: 'postRestored', id: 9 }, gone), []);
  rejects(() => commentDecider.decide({ kind: 'delete', id: 9 }, gone), { code: 'not_found', subject: 'comment' });
});

test('status parameters read as WordPress reads them; anything else is ignored', () => {
  assert.equal(
    ['approve', 'approved', '1', 'hold', '0', 'spam', 'trash', 'untrash', 'unspam', 'bogus'].map(statusRequest),
    ['approve', 'approve', 'approve', 'hold', 'hold', 'spam', 'trash', 'untrash', 'unspam', null],
  );
});

test.run();
