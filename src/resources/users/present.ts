/**
 * Read-model documents -> WordPress items (users and application passwords), for one context. Pure: the
 * caller decides what the requester may see (roles) and passes it in.
 */
import { createHash } from 'node:crypto';
import { ROLE_CAPABILITIES } from '../../access/capabilities';
import { chunkPassword } from '../../access/applicationPasswords';
import type { Context, ResourceSchema } from '../../rest/schema';
import { filterByContext } from '../../rest/schema';
import type { ApplicationPasswordDoc, UserDoc } from '../../../projections/users';
import { AVATAR_SIZES } from './schema';

export interface UserPresentOptions {
  context: Context;
  siteUrl: string;
  apiRoot: string;
  /** WordPress shows roles only to those who may list users or edit this one. */
  showRoles: boolean;
}

/** `2024-05-01T12:00:00.000Z` -> `2024-05-01T12:00:00+00:00`, as PHP's date('c') writes UTC. */
const isoWithOffset = (iso: string): string => `${iso.slice(0, 19)}+00:00`;
/** `2024-05-01T12:00:00.000Z` -> `2024-05-01T12:00:00`: application-password dates carry no zone. */
const isoWithoutZone = (iso: string): string => iso.slice(0, 19);

/** Gravatar URLs keyed by size: the md5 of the trimmed, lower-cased email picks the image and the server. */
export function avatarUrls(email: string, siteUrl: string): Record<string, string> {
  const normalised = email.trim().toLowerCase();
  const hash = normalised === '' ? '' : createHash('md5').update(normalised).digest('hex');
  const base = siteUrl.startsWith('https:')
    ? `https://secure.gravatar.com/avatar/${hash}`
    : `http://${hash === '' ? 0 : parseInt(hash[0]!, 16) % 3}.gravatar.com/avatar/${hash}`;
  const urls: Record<string, string> = {};
  for (const size of AVATAR_SIZES) urls[String(size)] = `${base}?s=${size}&d=mm&r=g`;
  return urls;
}

/** Every capability of the roles (a `level_N` implies the lower levels), then each role's own name. */
export function allCapabilities(roles: readonly string[]): Record<string, true> {
  const caps: Record<string, true> = {};
  for (const role of roles) {
    for (const cap of ROLE_CAPABILITIES[role as keyof typeof ROLE_CAPABILITIES] ?? []) {
      caps[cap] = true;
      const level = /^level_(\d+)$/.exec(cap);
      if (level) for (let n = Number(level[1]); n >= 0; n--) caps[`level_${n}`] = true;
    }
  }
  for (const role of roles) caps[role] = true;
  return caps;
}

/** PHP encodes an empty array as `[]`, which is how WordPress sends empty meta. */
const phpObject = (value: Record<string, unknown>): Record<string, unknown> | unknown[] =>
  Object.keys(value).length === 0 ? [] : value;

export const userLink = (siteUrl: string, slug: string): string => `${siteUrl}/author/${slug}/`;

export function presentUser(
  doc: UserDoc,
  schema: ResourceSchema,
  options: UserPresentOptions,
): Record<string, unknown> {
  const { siteUrl, apiRoot, context } = options;
  const item: Record<string, unknown> = {
    id: doc.id,
    username: doc.login,
    name: doc.name,
    first_name: doc.first_name,
    last_name: doc.last_name,
    email: doc.email,
    url: doc.url,
    description: doc.description,
    link: userLink(siteUrl, doc.slug),
    locale: doc.locale || 'en_US',
    nickname: doc.nickname,
    slug: doc.slug,
    ...(options.showRoles ? { roles: [...doc.roles] } : {}),
    registered_date: isoWithOffset(doc.registered),
    capabilities: allCapabilities(doc.roles),
    extra_capabilities: Object.fromEntries(doc.roles.map((role) => [role, true])),
    avatar_urls: avatarUrls(doc.email, siteUrl),
    meta: { persisted_preferences: phpObject(doc.meta?.persisted_preferences ?? {}) },
  };
  const filtered = filterByContext(schema, item, context) as Record<string, unknown>;
  if (filtered.meta && typeof filtered.meta === 'object' && !Array.isArray(filtered.meta))
    filtered.meta = phpObject(filtered.meta as Record<string, unknown>);
  filtered._links = {
    self: [{ href: `${apiRoot}core/v2/users/${doc.id}` }],
    collection: [{ href: `${apiRoot}core/v2/users` }],
  };
  return filtered;
}

export interface ApplicationPasswordPresentOptions {
  context: Context;
  apiRoot: string;
  userId: number;
  /** The password in clear: only in the answer that creates it. */
  newPassword?: string;
  /** WordPress leaves `_links` out of a deleted item's `previous`. */
  links?: boolean;
}

export const applicationPasswordUrl = (apiRoot: string, userId: number, uuid: string): string =>
  `${apiRoot}core/v2/users/${userId}/application-passwords/${uuid}`;

export function presentApplicationPassword(
  password: ApplicationPasswordDoc,
  schema: ResourceSchema,
  options: ApplicationPasswordPresentOptions,
): Record<string, unknown> {
  const item: Record<string, unknown> = {
    uuid: password.uuid,
    app_id: password.appId ?? '',
    name: password.name,
    created: isoWithoutZone(password.created),
    last_used: password.last_used ? isoWithoutZone(password.last_used) : null,
    last_ip: password.last_ip || null,
  };
  if (options.newPassword !== undefined) item.password = chunkPassword(options.newPassword);
  const filtered = filterByContext(schema, item, options.context) as Record<string, unknown>;
  if (options.links !== false)
    filtered._links = { self: [{ href: applicationPasswordUrl(options.apiRoot, options.userId, password.uuid) }] };
  return filtered;
}
