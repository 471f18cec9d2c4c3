/** The user decider: registration, profile, roles, login password, deletion and application passwords, pure. */
import type { Decider } from '../../core/commandHandler';
import type { Role } from '../../access/capabilities';
import { AlreadyExists, NotFound } from '../../core/errors';
import { USAGE_RECORD_INTERVAL_MS } from '../../access/applicationPasswords';
import { profileOf } from './events';
import type { ApplicationPasswordCreated, UserChanges, UserEvent, UserProfileFields, UserRegistered } from './events';

export type UserCommand =
  | { kind: 'register'; user: UserRegistered }
  /** Profile changes, roles and a new login-password hash, appended together (each only when it changes). */
  | { kind: 'update'; id: number; changes: UserChanges; roles?: Role[]; passwordHash?: string }
  | { kind: 'delete'; id: number; reassignedTo: number | null }
  | { kind: 'createApplicationPassword'; password: ApplicationPasswordCreated }
  | { kind: 'renameApplicationPassword'; userId: number; uuid: string; name: string }
  | { kind: 'revokeApplicationPassword'; userId: number; uuid: string }
  | { kind: 'revokeAllApplicationPasswords'; userId: number }
  /** `now` in milliseconds, `at` the same instant as ISO 8601. */
  | { kind: 'recordApplicationPasswordUse'; userId: number; uuid: string; now: number; at: string; ip: string | null };

export type UserAccount = UserRegistered & UserProfileFields;

export interface StoredApplicationPassword extends ApplicationPasswordCreated {
  lastUsed: string | null;
  lastIp: string | null;
}

export interface UserState {
  user: UserAccount | null;
  deleted: boolean;
  applicationPasswords: StoredApplicationPassword[];
}

const invalidUser = () => new NotFound('user');
const passwordNotFound = () => new NotFound('applicationPassword');

/** WordPress compares application names case-insensitively. */
export const sameApplicationName = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

export const userDecider: Decider<UserState, UserCommand, UserEvent> = {
  initialState: () => ({ user: null, deleted: false, applicationPasswords: [] }),
  evolve(state, event) {
    switch (event.type) {
      case 'UserRegistered':
        return { ...state, user: { ...event.data, ...profileOf(event.data) } };
      case 'UserUpdated':
        return state.user ? { ...state, user: { ...state.user, ...event.data.changes } } : state;
      case 'UserRolesChanged':
        return state.user ? { ...state, user: { ...state.user, roles: event.data.roles } } : state;
      case 'UserPasswordChanged':
        return state.user ? { ...state, user: { ...state.user, passwordHash: event.data.passwordHash } } : state;
      case 'UserDeleted':
        return { user: null, deleted: true, applicationPasswords: [] };
      case 'ApplicationPasswordCreated':
        return {
          ...state,
          applicationPasswords: [...state.applicationPasswords, { ...event.data, lastUsed: null, lastIp: null }],
        };
      case 'ApplicationPasswordRenamed':
        return {
          ...state,
          applicationPasswords: state.applicationPasswords.map((p) =>
            p.uuid === event.data.uuid ? { ...p, name: event.data.name } : p,
          ),
        };
      case 'ApplicationPasswordRevoked':
        return { ...state, applicationPasswords: state.applicationPasswords.filter((p) => p.uuid !== event.data.uuid) };
      case 'ApplicationPasswordUsed':
        return {
          ...state,
          applicationPasswords: state.applicationPasswords.map((p) =>
            p.uuid === event.data.uuid ? { ...p, lastUsed: event.data.at, lastIp: event.data.ip } : p,
          ),
        };
    }
  },
  decide(command, state) {
    if (command.kind === 'register') {
      if (state.user || state.deleted) throw new AlreadyExists('user', 'id');
      return [{ type: 'UserRegistered', data: command.user }];
    }
    const user = state.user;
    if (!user) throw invalidUser();
    switch (command.kind) {
      case 'update': {
        const events: UserEvent[] = [];
        const changes: Record<string, unknown> = {};
        for (const [key, value] of Object.entries(command.changes)) {
          if (value === undefined) continue;
          if (JSON.stringify((user as unknown as Record<string, unknown>)[key]) !== JSON.stringify(value))
            changes[key] = value;
        }
        if (Object.keys(changes).length > 0)
          events.push({ type: 'UserUpdated', data: { id: command.id, changes: changes as UserChanges } });
        if (command.roles && JSON.stringify(user.roles) !== JSON.stringify(command.roles)) {
          events.push({
            type: 'UserRolesChanged',
            data: { id: command.id, roles: command.roles, previous: user.roles },
          });
        }
        if (command.passwordHash !== undefined)
          events.push({ type: 'UserPasswordChanged', data: { id: command.id, passwordHash: command.passwordHash } });
        return events;
      }
      case 'delete':
        return [{ type: 'UserDeleted', data: { id: command.id, reassignedTo: command.reassignedTo } }];
      case 'createApplicationPassword':
        if (state.applicationPasswords.some((p) => sameApplicationName(p.name, command.password.name))) {
          throw new AlreadyExists('applicationPassword', 'name', { value: command.password.name });
        }
        return [{ type: 'ApplicationPasswordCreated', data: command.password }];
      case 'renameApplicationPassword': {
        const password = state.applicationPasswords.find((p) => p.uuid === command.uuid);
        if (!password) throw passwordNotFound();
        // Renaming checks no uniqueness in WordPress 6.1 (only creation does).
        if (password.name === command.name) return [];
        return [
          {
            type: 'ApplicationPasswordRenamed',
            data: { userId: command.userId, uuid: command.uuid, name: command.name },
          },
        ];
      }
      case 'revokeApplicationPassword':
        if (!state.applicationPasswords.some((p) => p.uuid === command.uuid)) throw passwordNotFound();
        return [{ type: 'ApplicationPasswordRevoked', data: { userId: command.userId, uuid: command.uuid } }];
      case 'revokeAllApplicationPasswords':
        return state.applicationPasswords.map((p) => ({
          type: 'ApplicationPasswordRevoked' as const,
          data: { userId: command.userId, uuid: p.uuid },
        }));
      case 'recordApplicationPasswordUse': {
        const password = state.applicationPasswords.find((p) => p.uuid === command.uuid);
        // Revoked in the meantime, or already recorded today (possibly by another process): nothing to do.
        if (!password) return [];
        if (password.lastUsed !== null && Date.parse(password.lastUsed) + USAGE_RECORD_INTERVAL_MS > command.now)
          return [];
        return [
          {
            type: 'ApplicationPasswordUsed',
            data: { userId: command.userId, uuid: command.uuid, at: command.at, ip: command.ip },
          },
        ];
      }
    }
  },
};
