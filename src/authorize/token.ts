/**
 * The authorization form's CSRF defence: a random nonce in a SameSite=Strict, HttpOnly cookie, and in the form
 * an expiry plus an HMAC (keyed with the site's auth secret) of the nonce, the expiry and the request's fixed
 * parameters. A cross-site form post carries no such cookie; a tampered redirect URL breaks the HMAC.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const NONCE_COOKIE = 'palimpsest_authorize';
export const TOKEN_LIFETIME_MS = 30 * 60 * 1000;

const NONCE_PATTERN = /^[A-Za-z0-9_-]{22}$/;

export const newNonce = (): string => randomBytes(16).toString('base64url');
export const isNonce = (value: string | undefined): value is string => value !== undefined && NONCE_PATTERN.test(value);

function mac(secret: string, nonce: string, expires: number, bound: readonly string[]): Buffer {
  // JSON keeps the parts apart whatever characters they hold.
  return createHmac('sha256', secret)
    .update(JSON.stringify(['authorize-application', nonce, expires, ...bound]))
    .digest();
}

export function issueToken(secret: string, nonce: string, now: number, bound: readonly string[]): string {
  const expires = now + TOKEN_LIFETIME_MS;
  return `${expires}.${mac(secret, nonce, expires, bound).toString('base64url')}`;
}

export function tokenIsValid(
  secret: string,
  nonce: string | undefined,
  token: string,
  now: number,
  bound: readonly string[],
): boolean {
  if (!isNonce(nonce)) return false;
  const match = /^(\d{1,16})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!match) return false;
  const expires = Number(match[1]);
  if (expires <= now) return false;
  const given = Buffer.from(match[2]!, 'base64url');
  const expected = mac(secret, nonce, expires, bound);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
