/**
 * The user decider, pure: which events each command gives for a state, and WordPress's refusals.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { userDecider } from '../../src/resources/users/decider';
import { USAGE_RECORD_INTERVAL_MS } from '../../src/access/applicationPasswords';
import type { UserCommand, UserState } from '../../src/resources/users/decider';
import type { UserEvent, UserRegistered } from '../../src/resources/users/events';
import { rejectsWith } from '../support/domainErrors';
import usersProjection from '../../projections/users';
import type { UserDoc } from '../../projections/users';
import type { RecordedEvent } from '../../src/ports/eventStore';

const registered: UserRegistered = {
  id: 7,
  login: 'ada',
  email: 'ada@example.test',
  displayName: 'Ada',
  nicename: 'ada',
  roles: ['author'],
  passwordHash: null,
  registered: '2024-05-01T12:00:00.000Z',
};

const fold = (events: UserEvent[]): UserState => events.reduce(userDecider.evolve, userDecider.initialState());
const withUser = (...more: UserEvent[]) => fold([{ type: 'UserRegistered', data: registered }, ...more]);
const password = (uuid: string, name: string): UserEvent => ({
  type: 'ApplicationPasswordCreated',
  data: { userId: 7, uuid, appId: '', name, passwordHash: 'h', created: '2024-05-01T12:00:00.000Z' },
});

const rejects = (command: UserCommand, state: UserState, expected: Parameters<typeof rejectsWith>[1]) =>
  rejectsWith(() => userDecider.decide(command, state), expected);

const test = suite('users: decider');

test('registering: once; old events without profile fields fold to WordPress’s defaults', () => {
  assert.equal(userDecider.decide({ kind: 'register', user: registered }, fold([])), [
    { type: 'UserRegistered', data: registered },
  ]);
  rejects({ kind: 'register', user: registered }, withUser(), { code: 'already_exists', subject: 'user', by: 'id' });
  const state = withUser();
  assert.is(state.user!.nickname, 'ada');
  assert.is(state.user!.firstName, '');
  assert.equal(state.user!.meta, { persisted_preferences: {} });
});

test('update: only changed fields, roles and a new hash, in one decision; nothing when nothing changes', () => {
  const state = withUser();
  assert.equal(
    userDecider.decide({ kind: 'update', id: 7, changes: { displayName: 'Ada', nickname: 'ada' } }, state),
    [],
  );
  assert.equal(
    userDecider.decide(
      { kind: 'update', id: 7, changes: { displayName: 'Ada L.', firstName: '' }, roles: ['author'] },
      state,
    ),
    [{ type: 'UserUpdated', data: { id: 7, changes: { displayName: 'Ada L.' } } }],
  );
  assert.equal(
    userDecider.decide({ kind: 'update', id: 7, changes: {}, roles: ['editor'], passwordHash: 'scrypt$x' }, state),
    [
      { type: 'UserRolesChanged', data: { id: 7, roles: ['editor'], previous: ['author'] } },
      { type: 'UserPasswordChanged', data: { id: 7, passwordHash: 'scrypt$x' } },
    ],
  );
  rejects({ kind: 'update', id: 7, changes: { displayName: 'x' } }, fold([]), { code: 'not_found', subject: 'user' });
});

test('a deleted user: gone with their application passwords; nothing more can be decided, not even registering again', () => {
  const state = withUser(password('p1', 'Phone'), { type: 'UserDeleted', data: { id: 7, reassignedTo: null } });
  assert.is(state.user, null);
  assert.equal(state.applicationPasswords, []);
  rejects({ kind: 'update', id: 7, changes: { displayName: 'x' } }, state, { code: 'not_found', subject: 'user' });
  rejects({ kind: 'register', user: registered }, state, { code: 'already_exists', subject: 'user', by: 'id' });
});

test('application passwords: unique names regardless of case on creation only; rename, revoke, revoke all', () => {
  const state = withUser(password('p1', 'Phone'), password('p2', 'Laptop'));
  rejects(
    {
      kind: 'createApplicationPassword',
      password: { userId: 7, uuid: 'p3', appId: '', name: 'PHONE', passwordHash: 'h', created: '' },
    },
    state,
    { code: 'already_exists', subject: 'applicationPassword', by: 'name', details: { value: 'PHONE' } },
  );
  assert.equal(userDecider.decide({ kind: 'renameApplicationPassword', userId: 7, uuid: 'p2', name: 'phone' }, state), [
    { type: 'ApplicationPasswordRenamed', data: { userId: 7, uuid: 'p2', name: 'phone' } },
  ]);
  assert.equal(
    userDecider.decide({ kind: 'renameApplicationPassword', userId: 7, uuid: 'p2', name: 'Laptop' }, state),
    [],
  );
  rejects({ kind: 'renameApplicationPassword', userId: 7, uuid: 'nope', name: 'x' }, state, {
    code: 'not_found',
    subject: 'applicationPassword',
  });
  rejects({ kind: 'revokeApplicationPassword', userId: 7, uuid: 'nope' }, state, {
    code: 'not_found',
    subject: 'applicationPassword',
  });
  assert.equal(
    userDecider.decide({ kind: 'revokeAllApplicationPasswords', userId: 7 }, state).map((e) => e.data),
    [
      { userId: 7, uuid: 'p1' },
      { userId: 7, uuid: 'p2' },
    ],
  );
  assert.equal(userDecider.decide({ kind: 'revokeAllApplicationPasswords', userId: 7 }, withUser()), []);
});

test('usage: recorded when never recorded or a day after the last record; not for a revoked password', () => {
  const now = Date.parse('2024-05-02T12:00:00Z');
  const use = (at: number): UserCommand => ({
    kind: 'recordApplicationPasswordUse',
    userId: 7,
    uuid: 'p1',
    now: at,
    at: new Date(at).toISOString(),
    ip: '192.0.2.1',
  });
  const fresh = withUser(password('p1', 'Phone'));
  assert.equal(userDecider.decide(use(now), fresh), [
    {
      type: 'ApplicationPasswordUsed',
      data: { userId: 7, uuid: 'p1', at: '2024-05-02T12:00:00.000Z', ip: '192.0.2.1' },
    },
  ]);
  const used = fold([
    ...[{ type: 'UserRegistered', data: registered } as UserEvent, password('p1', 'Phone')],
    ...userDecider.decide(use(now), fresh),
  ]);
  assert.is(used.applicationPasswords[0]!.lastIp, '192.0.2.1');
  assert.equal(userDecider.decide(use(now + USAGE_RECORD_INTERVAL_MS - 1), used), []);
  assert.is(userDecider.decide(use(now + USAGE_RECORD_INTERVAL_MS), used).length, 1);
  assert.equal(userDecider.decide(use(now), withUser(password('p2', 'Other'))), []);
});

test('the projection: users by id with their passwords; renames, usage and deletion', () => {
  let position = 0;
  const recorded = (event: UserEvent): RecordedEvent => ({
    id: '',
    streamId: 'user-7',
    revision: position,
    position: ++position,
    type: event.type,
    data: event.data,
    metadata: { userId: null, requestId: 'r', at: '' },
  });
  const events: UserEvent[] = [
    { type: 'UserRegistered', data: registered },
    password('p1', 'Phone'),
    { type: 'ApplicationPasswordRenamed', data: { userId: 7, uuid: 'p1', name: 'Old phone' } },
    {
      type: 'ApplicationPasswordUsed',
      data: { userId: 7, uuid: 'p1', at: '2024-05-02T00:00:00.000Z', ip: '192.0.2.1' },
    },
    { type: 'UserUpdated', data: { id: 7, changes: { displayName: 'Ada L.', nicename: 'ada-l', firstName: 'Ada' } } },
    { type: 'UserRolesChanged', data: { id: 7, roles: ['editor'], previous: ['author'] } },
  ];
  let doc: UserDoc | null = null;
  for (const event of events) {
    const e = recorded(event);
    assert.equal(usersProjection.locate(e), { collection: 'user', id: 7 });
    doc = usersProjection.evolve(doc, e);
  }
  assert.is(doc!.name, 'Ada L.');
  assert.is(doc!.slug, 'ada-l');
  assert.is(doc!.first_name, 'Ada');
  assert.equal(doc!.roles, ['editor']);
  assert.equal(
    doc!.application_passwords.map((p) => [p.name, p.last_used, p.last_ip]),
    [['Old phone', '2024-05-02T00:00:00.000Z', '192.0.2.1']],
  );
  // The login-password hash stays in the log.
  assert.not.ok('passwordHash' in doc!);
  const index = usersProjection.index!(doc!, 'user');
  assert.equal(index.sets, { login: 'ada', email: 'ada@example.test', slug: 'ada-l', role: ['editor'] });
  assert.is(usersProjection.evolve(doc, recorded({ type: 'UserDeleted', data: { id: 7, reassignedTo: 3 } })), null);
});

test.run();
