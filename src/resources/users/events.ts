/**
 * Events of the user streams (`user-{id}`): identity, roles, login passwords and application passwords are
 * events too, so who was allowed to do what, and since when, is part of the audit trail. Password material
 * only ever appears as a hash.
 */
import type { DomainEvent } from '../../core/commandHandler';
import type { Role } from '../../access/capabilities';

/** The profile fields a user has besides identity; absent in events written before they existed. */
export interface UserProfileFields {
  firstName: string;
  lastName: string;
  nickname: string;
  description: string;
  url: string;
  /** '' follows the site's locale. */
  locale: string;
  /** Registered user meta (WordPress 6.1 registers `persisted_preferences`). */
  meta: { persisted_preferences: Record<string, unknown> };
}

export interface UserRegistered extends Partial<UserProfileFields> {
  id: number;
  login: string;
  email: string;
  displayName: string;
  /** URL-safe name (WordPress's user_nicename), the user's `slug`. */
  nicename: string;
  roles: Role[];
  /** A slow hash of a login password, when the user has one (application passwords are separate). */
  passwordHash: string | null;
  registered: string;
}

/** The fields an update may change (the login never changes). */
export type UserChanges = Partial<Pick<UserRegistered, 'email' | 'displayName' | 'nicename'> & UserProfileFields>;

export interface UserUpdated {
  id: number;
  /** Only the fields whose values changed. */
  changes: UserChanges;
}

export interface UserRolesChanged {
  id: number;
  roles: Role[];
  previous: Role[];
}

export interface UserPasswordChanged {
  id: number;
  passwordHash: string;
}

export interface UserDeleted {
  id: number;
  /** The user who received the deleted user's content, or null when it was trashed with them. */
  reassignedTo: number | null;
}

export interface ApplicationPasswordCreated {
  userId: number;
  uuid: string;
  appId: string;
  name: string;
  /** A keyed SHA-256 of the password, never the password itself. */
  passwordHash: string;
  created: string;
}

export interface ApplicationPasswordRenamed {
  userId: number;
  uuid: string;
  name: string;
}

export interface ApplicationPasswordRevoked {
  userId: number;
  uuid: string;
}

/** Recorded at most once a day per password, as WordPress updates `last_used` / `last_ip`. */
export interface ApplicationPasswordUsed {
  userId: number;
  uuid: string;
  at: string;
  ip: string | null;
}

export type UserEvent =
  | DomainEvent<'UserRegistered', UserRegistered>
  | DomainEvent<'UserUpdated', UserUpdated>
  | DomainEvent<'UserRolesChanged', UserRolesChanged>
  | DomainEvent<'UserPasswordChanged', UserPasswordChanged>
  | DomainEvent<'UserDeleted', UserDeleted>
  | DomainEvent<'ApplicationPasswordCreated', ApplicationPasswordCreated>
  | DomainEvent<'ApplicationPasswordRenamed', ApplicationPasswordRenamed>
  | DomainEvent<'ApplicationPasswordRevoked', ApplicationPasswordRevoked>
  | DomainEvent<'ApplicationPasswordUsed', ApplicationPasswordUsed>;

export const USER_EVENT_TYPES = [
  'UserRegistered',
  'UserUpdated',
  'UserRolesChanged',
  'UserPasswordChanged',
  'UserDeleted',
  'ApplicationPasswordCreated',
  'ApplicationPasswordRenamed',
  'ApplicationPasswordRevoked',
  'ApplicationPasswordUsed',
] as const;

export const userStreamId = (id: number): string => `user-${id}`;

/** Profile defaults for users registered before the profile fields existed, or without them. */
export function profileOf(user: UserRegistered): UserProfileFields {
  return {
    firstName: user.firstName ?? '',
    lastName: user.lastName ?? '',
    nickname: user.nickname ?? user.login,
    description: user.description ?? '',
    url: user.url ?? '',
    locale: user.locale ?? '',
    meta: user.meta ?? { persisted_preferences: {} },
  };
}
