/**
 * User operations, callable without HTTP (the CLI, the users routes and the authorization page share them).
 * Logins, emails and slugs are claimed in the event store, so two processes cannot take the same one; the
 * effects a decision needs (ids, claims, slow password hashes) happen here, around the pure decider.
 */
import { randomUUID } from 'node:crypto';
import type { Site } from '../../site';
import type { CommandContext } from '../../access/accounts';
import type { Actor, Role } from '../../access/capabilities';
import { generateApplicationPassword, hashApplicationPassword } from '../../access/applicationPasswords';
import { AlreadyExists, InvalidValue, NotFound } from '../../core/errors';
import { discardContentOf, reassignContent } from '../content/reassign';
import { userDecider } from './decider';
import type { UserAccount, UserState } from './decider';
import { userStreamId } from './events';
import type { UserChanges, UserProfileFields } from './events';
import { hashLoginPassword } from '../../access/loginPassword';
import {
  MAX_LOGIN_LENGTH,
  MAX_NICENAME_LENGTH,
  MAX_URL_LENGTH,
  defaultDisplayName,
  isValidUsername,
  nicenameCandidates,
  nicenameFor,
} from './names';

export interface NewUser {
  /** An id chosen by the caller (an import keeping its source's ids, reserved beforehand); else the next one. */
  id?: number;
  login: string;
  email: string;
  /** A login password in clear (hashed here), or none. */
  password?: string | null;
  roles: Role[];
  displayName?: string;
  firstName?: string;
  lastName?: string;
  nickname?: string;
  description?: string;
  url?: string;
  locale?: string;
  slug?: string;
  meta?: UserProfileFields['meta'];
}

export interface RegisterUserInput {
  login: string;
  email?: string;
  role: Role;
  displayName?: string;
  password?: string;
}

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The CLI's registration: one role, email optional. */
export async function registerUser(
  site: Site,
  input: RegisterUserInput,
  actorId: number | null,
  requestId: string,
): Promise<{ id: number; position: number }> {
  const login = input.login.trim();
  if (!isValidUsername(login)) throw new InvalidValue('user', ['login'], 'unparsable');
  const email = (input.email ?? '').trim();
  if (email !== '' && !EMAIL_PATTERN.test(email)) throw new InvalidValue('user', ['email'], 'unparsable');
  return createUser(
    site,
    { login, email, roles: [input.role], displayName: input.displayName, password: input.password ?? null },
    actorId,
    requestId,
  );
}

export async function createUser(
  site: Site,
  input: NewUser,
  actorId: number | null,
  requestId: string,
): Promise<{ id: number; position: number }> {
  const login = input.login.trim();
  if (login === '') throw new InvalidValue('user', ['login'], 'empty');
  if ([...login].length > MAX_LOGIN_LENGTH) throw new InvalidValue('user', ['login'], 'tooLong');
  const requestedNicename = nicenameFor(login, input.slug);
  if ([...requestedNicename].length > MAX_NICENAME_LENGTH) throw new InvalidValue('user', ['slug'], 'tooLong');
  const url = input.url ?? '';
  if ([...url].length > MAX_URL_LENGTH) throw new InvalidValue('user', ['url'], 'tooLong');
  const email = input.email.trim();

  const metadata = site.metadata(actorId, requestId);
  const id = input.id ?? (await site.ids.users.nextId());
  const held: [scope: string, name: string][] = [];
  const releaseHeld = async () => {
    for (const [scope, name] of held) await site.claims.release(scope, name, id, metadata);
  };
  try {
    if (!(await site.claims.claimExact('user-login', login.toLowerCase(), id, metadata))) {
      throw new AlreadyExists('user', 'name', { value: login });
    }
    held.push(['user-login', login.toLowerCase()]);
    if (email !== '') {
      if (!(await site.claims.claimExact('user-email', email.toLowerCase(), id, metadata))) {
        throw new AlreadyExists('user', 'email', { value: email, operation: 'create' });
      }
      held.push(['user-email', email.toLowerCase()]);
    }
    const nicename = await site.claims.claimFirstFree(
      'user-slug',
      nicenameCandidates(requestedNicename || String(id)),
      id,
      metadata,
    );
    held.push(['user-slug', nicename]);
    const firstName = input.firstName ?? '';
    const lastName = input.lastName ?? '';
    const result = await site.commands.handle(
      userStreamId(id),
      userDecider,
      {
        kind: 'register',
        user: {
          id,
          login,
          email,
          displayName: input.displayName || defaultDisplayName(login, firstName, lastName),
          nicename,
          roles: input.roles,
          passwordHash: input.password ? await hashLoginPassword(input.password) : null,
          registered: metadata.at,
          firstName,
          lastName,
          nickname: input.nickname || login,
          description: input.description ?? '',
          url,
          locale: input.locale ?? '',
          meta: input.meta ?? { persisted_preferences: {} },
        },
      },
      metadata,
    );
    return { id, position: result.position };
  } catch (error) {
    await releaseHeld();
    throw error;
  }
}

export interface UserUpdate {
  email?: string;
  displayName?: string;
  firstName?: string;
  lastName?: string;
  nickname?: string;
  description?: string;
  url?: string;
  locale?: string;
  /** Already sanitized. */
  slug?: string;
  roles?: Role[];
  password?: string;
  meta?: UserProfileFields['meta'];
}

/** Applies an update whose permission and WordPress's pre-checks the caller has done. */
export async function updateUser(
  site: Site,
  id: number,
  input: UserUpdate,
  actor: Actor,
  requestId: string,
): Promise<{ position: number }> {
  if (input.url !== undefined && [...input.url].length > MAX_URL_LENGTH)
    throw new InvalidValue('user', ['url'], 'tooLong');
  const metadata = site.metadata(actor.id, requestId);
  const current = await loadUser(site, id);
  const claimed: [scope: string, name: string][] = [];
  const released: [scope: string, name: string][] = [];
  const changes: UserChanges = {
    displayName: input.displayName,
    firstName: input.firstName,
    lastName: input.lastName,
    nickname: input.nickname,
    description: input.description,
    url: input.url,
    locale: input.locale,
    meta: input.meta,
  };
  try {
    const email = input.email?.trim();
    if (email !== undefined && email.toLowerCase() !== current.email.toLowerCase()) {
      if (email !== '' && !(await site.claims.claimExact('user-email', email.toLowerCase(), id, metadata))) {
        throw new AlreadyExists('user', 'email', { value: email, operation: 'update' });
      }
      if (email !== '') claimed.push(['user-email', email.toLowerCase()]);
      if (current.email !== '') released.push(['user-email', current.email.toLowerCase()]);
    }
    if (email !== undefined) changes.email = email;
    if (input.slug !== undefined && input.slug !== '' && input.slug !== current.nicename) {
      if (!(await site.claims.claimExact('user-slug', input.slug, id, metadata)))
        throw new AlreadyExists('user', 'slug', { value: input.slug });
      claimed.push(['user-slug', input.slug]);
      released.push(['user-slug', current.nicename]);
      changes.nicename = input.slug;
    }
    const passwordHash = input.password ? await hashLoginPassword(input.password) : undefined;
    const result = await site.commands.handle(
      userStreamId(id),
      userDecider,
      { kind: 'update', id, changes, roles: input.roles, passwordHash },
      metadata,
    );
    for (const [scope, name] of released) await site.claims.release(scope, name, id, metadata);
    return { position: result.position };
  } catch (error) {
    for (const [scope, name] of claimed) await site.claims.release(scope, name, id, metadata);
    throw error;
  }
}

/**
 * Deletes a user: their content goes to `reassignTo` (or to the trash), then the user, then their names are
 * freed. Content first, so an interrupted deletion leaves the user in place and can simply be repeated.
 */
export async function deleteUser(
  site: Site,
  id: number,
  reassignTo: number | null,
  actor: Actor,
  requestId: string,
): Promise<{ position: number }> {
  const metadata = site.metadata(actor.id, requestId);
  const current = await loadUser(site, id);
  const contentPosition =
    reassignTo !== null
      ? await reassignContent(site, id, reassignTo, actor, requestId)
      : await discardContentOf(site, id, actor, requestId);
  const result = await site.commands.handle(
    userStreamId(id),
    userDecider,
    { kind: 'delete', id, reassignedTo: reassignTo },
    metadata,
  );
  await site.claims.release('user-login', current.login.toLowerCase(), id, metadata);
  if (current.email !== '') await site.claims.release('user-email', current.email.toLowerCase(), id, metadata);
  await site.claims.release('user-slug', current.nicename, id, metadata);
  return { position: Math.max(result.position, contentPosition) };
}

/** A user's current state from their stream (the source of truth, including the login-password hash). */
export async function loadUserState(site: Site, id: number): Promise<UserState> {
  return (await site.commands.load(userStreamId(id), userDecider)).state;
}

async function loadUser(site: Site, id: number): Promise<UserAccount> {
  const { user } = await loadUserState(site, id);
  if (!user) throw new NotFound('user');
  return user;
}

// --- application passwords ------------------------------------------------------------------------------------

export async function createApplicationPassword(
  site: Site,
  userId: number,
  input: { name: string; appId?: string },
  actorId: number | null,
  requestId: string,
): Promise<{ password: string; uuid: string; created: string; position: number }> {
  const name = input.name.trim();
  if (name === '') throw new InvalidValue('applicationPassword', ['name'], 'empty');
  const metadata = site.metadata(actorId, requestId);
  const password = generateApplicationPassword();
  const uuid = randomUUID();
  const result = await site.commands.handle(
    userStreamId(userId),
    userDecider,
    {
      kind: 'createApplicationPassword',
      password: {
        userId,
        uuid,
        appId: input.appId ?? '',
        name,
        passwordHash: hashApplicationPassword(site.settings.authSecret, password),
        created: metadata.at,
      },
    },
    metadata,
  );
  return { password, uuid, created: metadata.at, position: result.position };
}

export async function renameApplicationPassword(
  site: Site,
  userId: number,
  uuid: string,
  name: string,
  actorId: number | null,
  requestId: string,
): Promise<{ position: number }> {
  const result = await site.commands.handle(
    userStreamId(userId),
    userDecider,
    { kind: 'renameApplicationPassword', userId, uuid, name },
    site.metadata(actorId, requestId),
  );
  return { position: result.position };
}

export async function revokeApplicationPassword(
  site: Site,
  userId: number,
  uuid: string,
  actorId: number | null,
  requestId: string,
): Promise<{ position: number }> {
  const result = await site.commands.handle(
    userStreamId(userId),
    userDecider,
    { kind: 'revokeApplicationPassword', userId, uuid },
    site.metadata(actorId, requestId),
  );
  return { position: result.position };
}

export async function revokeAllApplicationPasswords(
  site: Site,
  userId: number,
  actorId: number | null,
  requestId: string,
): Promise<{ count: number; position: number }> {
  const result = await site.commands.handle(
    userStreamId(userId),
    userDecider,
    { kind: 'revokeAllApplicationPasswords', userId },
    site.metadata(actorId, requestId),
  );
  return { count: result.events.length, position: result.position };
}

/** Records that a password was used now from `ip`, unless that was already recorded within the last day. */
export async function recordApplicationPasswordUse(
  site: CommandContext,
  userId: number,
  uuid: string,
  ip: string | null,
  requestId: string,
): Promise<{ position: number }> {
  const metadata = site.metadata(userId, requestId);
  const result = await site.commands.handle(
    userStreamId(userId),
    userDecider,
    { kind: 'recordApplicationPasswordUse', userId, uuid, now: site.clock.now(), at: metadata.at, ip },
    metadata,
  );
  return { position: result.position };
}
