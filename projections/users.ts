/**
 * Users as authentication and the users routes read them, with their application passwords (hashes only;
 * login-password hashes stay in the event log, which the authorization page reads). Deleted users vanish.
 */
import { defineProjection } from '../src/projection/projection';
import type { Role } from '../src/access/capabilities';
import type {
  ApplicationPasswordCreated,
  ApplicationPasswordRenamed,
  ApplicationPasswordRevoked,
  ApplicationPasswordUsed,
  UserRegistered,
  UserRolesChanged,
  UserUpdated,
} from '../src/resources/users/events';
import { USER_EVENT_TYPES, profileOf } from '../src/resources/users/events';

export interface ApplicationPasswordDoc extends Omit<ApplicationPasswordCreated, 'userId'> {
  last_used: string | null;
  last_ip: string | null;
}

export interface UserDoc {
  id: number;
  login: string;
  email: string;
  /** Display name. */
  name: string;
  slug: string;
  roles: Role[];
  registered: string;
  first_name: string;
  last_name: string;
  nickname: string;
  description: string;
  url: string;
  locale: string;
  meta: { persisted_preferences: Record<string, unknown> };
  application_passwords: ApplicationPasswordDoc[];
  [field: string]: unknown;
}

/** Event field names to document field names, for UserUpdated. */
const FIELD_OF: Record<string, keyof UserDoc> = {
  email: 'email',
  displayName: 'name',
  nicename: 'slug',
  firstName: 'first_name',
  lastName: 'last_name',
  nickname: 'nickname',
  description: 'description',
  url: 'url',
  locale: 'locale',
  meta: 'meta',
};

const updatePassword = (
  doc: UserDoc,
  uuid: string,
  change: (p: ApplicationPasswordDoc) => ApplicationPasswordDoc,
): UserDoc => ({
  ...doc,
  application_passwords: doc.application_passwords.map((p) => (p.uuid === uuid ? change(p) : p)),
});

export default defineProjection<UserDoc>({
  name: 'users',
  version: 2,
  collections: ['user'],
  handles: USER_EVENT_TYPES,
  locate(event) {
    const data = event.data as { id?: number; userId?: number };
    return { collection: 'user', id: (data.userId ?? data.id)! };
  },
  evolve(doc, event) {
    switch (event.type) {
      case 'UserRegistered': {
        const user = event.data as UserRegistered;
        const profile = profileOf(user);
        return {
          id: user.id,
          login: user.login,
          email: user.email,
          name: user.displayName,
          slug: user.nicename,
          roles: user.roles,
          registered: user.registered,
          first_name: profile.firstName,
          last_name: profile.lastName,
          nickname: profile.nickname,
          description: profile.description,
          url: profile.url,
          locale: profile.locale,
          meta: profile.meta,
          application_passwords: [],
        };
      }
      case 'UserUpdated': {
        if (!doc) return null;
        const next: UserDoc = { ...doc };
        for (const [key, value] of Object.entries((event.data as UserUpdated).changes)) {
          const field = FIELD_OF[key];
          if (field) (next as Record<string, unknown>)[field] = value;
        }
        return next;
      }
      case 'UserRolesChanged':
        return doc ? { ...doc, roles: (event.data as UserRolesChanged).roles } : null;
      case 'UserDeleted':
        return null;
      case 'ApplicationPasswordCreated': {
        if (!doc) return null;
        const { userId: _userId, ...password } = event.data as ApplicationPasswordCreated;
        return {
          ...doc,
          application_passwords: [...doc.application_passwords, { ...password, last_used: null, last_ip: null }],
        };
      }
      case 'ApplicationPasswordRenamed': {
        if (!doc) return null;
        const { uuid, name } = event.data as ApplicationPasswordRenamed;
        return updatePassword(doc, uuid, (p) => ({ ...p, name }));
      }
      case 'ApplicationPasswordRevoked': {
        if (!doc) return null;
        const { uuid } = event.data as ApplicationPasswordRevoked;
        return { ...doc, application_passwords: doc.application_passwords.filter((p) => p.uuid !== uuid) };
      }
      case 'ApplicationPasswordUsed': {
        if (!doc) return null;
        const { uuid, at, ip } = event.data as ApplicationPasswordUsed;
        return updatePassword(doc, uuid, (p) => ({ ...p, last_used: at, last_ip: ip }));
      }
      default:
        return doc;
    }
  },
  index(doc) {
    return {
      sort: {
        name: doc.name.toLowerCase(),
        registered: Date.parse(doc.registered),
        slug: doc.slug,
        email: doc.email.toLowerCase(),
        url: doc.url.toLowerCase(),
        login: doc.login.toLowerCase(),
      },
      sets: { login: doc.login.toLowerCase(), email: doc.email.toLowerCase(), slug: doc.slug, role: doc.roles },
      text: { login: doc.login, email: doc.email, url: doc.url, slug: doc.slug, name: doc.name },
    };
  },
});
