/**
 * Logins and nicenames (slugs) as WordPress accepts and derives them. Pure.
 */
import { removeAccents, sanitizeSlug, stripTagsLikePhp } from '../../text/slug';

export const MAX_LOGIN_LENGTH = 60;
export const MAX_NICENAME_LENGTH = 50;
export const MAX_URL_LENGTH = 100;

/** WordPress's strict username cleaning: only letters, digits, space, `_ . - @`, whitespace collapsed. */
export function strictUsername(input: string): string {
  let name = stripTagsLikePhp(input);
  name = removeAccents(name);
  name = name.replace(/%[a-fA-F0-9]{2}/g, '');
  name = name.replace(/&.+?;/g, '');
  name = name.replace(/[^a-z0-9 _.\-@]/gi, '');
  return name.trim().replace(/\s+/g, ' ');
}

/** A login is valid when strict cleaning leaves it unchanged and non-empty. */
export const isValidUsername = (login: string): boolean => login !== '' && strictUsername(login) === login;

/** The nicename a new user gets: from the requested slug, or from the first 50 characters of the login. */
export function nicenameFor(login: string, requestedSlug: string | undefined): string {
  if (requestedSlug !== undefined && requestedSlug !== '') return sanitizeSlug(strictUsername(requestedSlug));
  return sanitizeSlug([...login].slice(0, MAX_NICENAME_LENGTH).join(''));
}

/** name, name-2, name-3, … with the base shortened so the whole stays within 50 characters. */
export function* nicenameCandidates(base: string): Iterable<string> {
  yield base;
  for (let suffix = 2; ; suffix++) {
    const room = MAX_NICENAME_LENGTH - 1 - String(suffix).length;
    yield `${[...base].slice(0, room).join('')}-${suffix}`;
  }
}

/** The display name WordPress gives a new user who named none: first and last name, either, or the login. */
export function defaultDisplayName(login: string, firstName: string, lastName: string): string {
  if (firstName && lastName) return `${firstName} ${lastName}`;
  return firstName || lastName || login;
}
