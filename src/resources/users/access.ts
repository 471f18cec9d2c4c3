/**
 * WordPress's meta capabilities about users, mapped onto the primitives of `access/capabilities.ts`:
 * everyone may edit themselves (and so manage their own application passwords); editing, deleting and
 * promoting others needs `edit_users`, `delete_users`, `promote_users`.
 */
import type { Actor, Role } from '../../access/capabilities';
import { ROLES, ROLE_CAPABILITIES, hasCap } from '../../access/capabilities';

export const canEditUser = (actor: Actor | null, userId: number): boolean =>
  actor !== null && (actor.id === userId || hasCap(actor, 'edit_users'));
export const canDeleteUser = (actor: Actor | null): boolean => hasCap(actor, 'delete_users');
export const canPromoteUser = (actor: Actor | null): boolean => hasCap(actor, 'promote_users');
export const canListUsers = (actor: Actor | null): boolean => hasCap(actor, 'list_users');
export const canCreateUsers = (actor: Actor | null): boolean => hasCap(actor, 'create_users');

/** `who=authors`: users above level 0, i.e. whose roles can write. */
export const AUTHOR_ROLES: readonly Role[] = ROLES.filter((role) => ROLE_CAPABILITIES[role].has('level_1'));

/** Roles granting any of `capabilities` (a role's name counts as a capability of its holders). */
export function rolesWithAnyCapability(capabilities: readonly string[]): Role[] {
  return ROLES.filter((role) => capabilities.some((cap) => cap === role || ROLE_CAPABILITIES[role].has(cap)));
}
