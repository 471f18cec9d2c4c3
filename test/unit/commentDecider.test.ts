/** The comment decider: given earlier events, when a command, then these events or this error. Pure, no site. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { commentDecider, statusRequest } from '../../src/resources/comments/decider';
import type { CommentCommand, CommentState, CreateFacts } from '../../src/resources/comments/decider';
import type { CommentEvent, CommentFields } from '../../src/resources/comments/events';
import { RestError } from '../../src/rest/errors';

const FIELDS: Omit<CommentFields, 'status' | 'status_before'> = {
  post: 5, parent: 0, author: 3, author_name: 'Sam', author_email: 'sam@example.test', author_url: '', author_ip: '127.0.0.1',
  author_user_agent: 'ua', date: '2024-05-01T12:00:00', date_gmt: '2024-05-01T12:00:00', content: 'Hello', type: 'comment',
};
const FACTS: CreateFacts = {
  trusted: false, previouslyApproved: false, duplicateOf: null, parentOnPost: true, requireNameEmail: true,
  flood: { exempt: false, latestAt: null, intervalMs: 15_000 },
};
const create = (over: Partial<Extract<CommentCommand, { kind: 'create' }>> = {}): CommentCommand => ({ kind: 'create', id: 9, fields: FIELDS, status: null, facts: FACTS, ...over });

const given = (events: CommentEvent[]): CommentState => events.reduce(commentDecider.evolve, commentDecider.initialState());
const statusAfter = (commands: CommentCommand[]): string | undefined => {
  let state = commentDecider.initialState();
  for (const command of commands) state = commentDecider.decide(command, state).reduce(commentDecider.evolve, state);
  return state.comment?.status;
};
const rejects = (fn: () => unknown, code: string, status?: number) => {
  try {
    fn();
  } catch (error) {
    assert.instance(error, RestError);
    assert.is((error as RestError).code, code);
    if (status !== undefined) assert.is((error as RestError).status, status);
    return;
  }
  assert.unreachable(`expected ${code}`);
};

test('a trusted writer (moderator or the post author) is approved at once; others are held', () => {
  const [trusted] = commentDecider.decide(create({ facts: { ...FACTS, trusted: true } }), commentDecider.initialState());
  assert.is((trusted!.data as { comment: CommentFields }).comment.status, 'approved');
  const [held] = commentDecider.decide(create(), commentDecider.initialState());
  assert.is(held!.type, 'CommentCreated');
  assert.is((held!.data as { comment: CommentFields }).comment.status, 'hold');
});

test('a previously approved author is approved, unless the comment has too many links', () => {
  assert.is(statusAfter([create({ facts: { ...FACTS, previouslyApproved: true } })]), 'approved');
  const links = '<a href="https://a.test">a</a> <a href="https://b.test">b</a>';
  assert.is(statusAfter([create({ fields: { ...FIELDS, content: links }, facts: { ...FACTS, previouslyApproved: true } })]), 'hold');
});

test('a moderator\'s explicit status wins over the approval rules', () => {
  assert.is(statusAfter([create({ facts: { ...FACTS, trusted: true }, status: 'hold' })]), 'hold');
  assert.is(statusAfter([create({ status: 'spam' })]), 'spam');
});

test('blank content, a duplicate and a parent on another post are refused', () => {
  rejects(() => commentDecider.decide(create({ fields: { ...FIELDS, content: ' \n' } }), commentDecider.initialState()), 'rest_comment_content_invalid', 400);
  rejects(() => commentDecider.decide(create({ facts: { ...FACTS, duplicateOf: 4 } }), commentDecider.initialState()), 'comment_duplicate', 409);
  rejects(() => commentDecider.decide(create({ fields: { ...FIELDS, parent: 2 }, facts: { ...FACTS, parentOnPost: false } }), commentDecider.initialState()), 'rest_comment_invalid_parent', 400);
  rejects(() => commentDecider.decide(create(), given(commentDecider.decide(create(), commentDecider.initialState()))), 'rest_comment_exists');
});

test('trash remembers the status it came from; untrash restores it; trashing twice is refused (410)', () => {
  const approved = create({ facts: { ...FACTS, trusted: true } });
  assert.is(statusAfter([approved, { kind: 'trash', id: 9 }]), 'trash');
  assert.is(statusAfter([approved, { kind: 'trash', id: 9 }, { kind: 'update', id: 9, changes: {}, status: 'untrash', parentOnPost: true }]), 'approved');
  assert.is(statusAfter([create(), { kind: 'update', id: 9, changes: {}, status: 'spam', parentOnPost: true }, { kind: 'update', id: 9, changes: {}, status: 'unspam', parentOnPost: true }]), 'hold');
  let state = commentDecider.initialState();
  for (const c of [approved, { kind: 'trash', id: 9 } as CommentCommand]) state = commentDecider.decide(c, state).reduce(commentDecider.evolve, state);
  rejects(() => commentDecider.decide({ kind: 'trash', id: 9 }, state), 'rest_already_trashed', 410);
});

test('an update records only what changed; no change records nothing; an unknown comment is 404', () => {
  let state = commentDecider.initialState();
  state = commentDecider.decide(create(), state).reduce(commentDecider.evolve, state);
  assert.equal(commentDecider.decide({ kind: 'update', id: 9, changes: { content: 'Hello' }, status: null, parentOnPost: true }, state), []);
  assert.equal(commentDecider.decide({ kind: 'update', id: 9, changes: { content: 'Bye', author_name: 'Sam' }, status: 'approve', parentOnPost: true }, state), [
    { type: 'CommentUpdated', data: { id: 9, changes: { content: 'Bye', status: 'approved' } } },
  ]);
  rejects(() => commentDecider.decide({ kind: 'update', id: 9, changes: { content: '' }, status: null, parentOnPost: true }, state), 'rest_comment_content_invalid');
  rejects(() => commentDecider.decide({ kind: 'delete', id: 9 }, commentDecider.initialState()), 'rest_comment_invalid_id', 404);
  assert.equal(commentDecider.decide({ kind: 'delete', id: 9 }, state), [{ type: 'CommentDeleted', data: { id: 9, post: 5 } }]);
});

test('status parameters read as WordPress reads them; anything else is ignored', () => {
  assert.equal(['approve', 'approved', '1', 'hold', '0', 'spam', 'trash', 'untrash', 'unspam', 'bogus'].map(statusRequest), ['approve', 'approve', 'approve', 'hold', 'hold', 'spam', 'trash', 'untrash', 'unspam', null]);
});

test.run();
