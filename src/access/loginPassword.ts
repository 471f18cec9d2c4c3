/**
 * Login passwords: chosen by people, so hashed slowly with bcrypt and a per-hash random salt. They only sign in to
 * the authorization page, never to the API. bcrypt is `@node-rs/bcrypt` (prebuilt native binaries in the npm
 * package): its hash and verify run on libuv's thread pool, so a check never holds the event loop (how many run at
 * once is bounded by src/access/loginChecks.ts). Its hashes are the standard `$2b$` form, the same as those written
 * earlier by the pure-JavaScript bcryptjs, which verify unchanged.
 *
 * bcrypt reads at most 72 bytes, so the password is first condensed with HMAC-SHA-384 into 64 base64
 * characters: a long passphrase counts in full, and no NUL byte can end it early. The stored form names the
 * scheme and keeps bcrypt's own cost field: `bcrypt-sha384$$2b$11$...`. Raising COST later makes
 * `loginPasswordNeedsRehash` true for older hashes, which are then replaced at the next successful sign-in,
 * as are the scrypt hashes (`scrypt$N$r$p$salt$hash`) that earlier versions wrote and that still verify.
 */
import { createHmac, scrypt, timingSafeEqual } from 'node:crypto';
import type { ScryptOptions } from 'node:crypto';
import { hash as bcryptHash, verify as bcryptVerify } from '@node-rs/bcrypt';

const SCHEME = 'bcrypt-sha384';
/** About 0.15 s per hash on the reference machine (2 cores): slow for guessing, tolerable for a sign-in. */
const COST = 11;
/** A fixed, public key: the HMAC only condenses the password (the salt is bcrypt's), as WordPress 6.8 does. */
const CONDENSE_KEY = 'palimpsest-login-password';

function condense(password: string): string {
  return createHmac('sha384', CONDENSE_KEY).update(password.normalize('NFC'), 'utf8').digest('base64');
}

export async function hashLoginPassword(password: string): Promise<string> {
  return `${SCHEME}$${await bcryptHash(condense(password), COST)}`;
}

/** False for a wrong password, a missing hash or one this code cannot read. */
export async function loginPasswordMatches(password: string, stored: string | null): Promise<boolean> {
  if (!stored) return false;
  if (stored.startsWith(`${SCHEME}$`)) {
    try {
      return await bcryptVerify(condense(password), stored.slice(SCHEME.length + 1));
    } catch {
      return false; // not a bcrypt hash
    }
  }
  if (stored.startsWith('scrypt$')) return legacyScryptMatches(password, stored);
  return false;
}

/** True when a hash that just matched should be replaced: another scheme, or a lower cost than today's. */
export function loginPasswordNeedsRehash(stored: string): boolean {
  if (!stored.startsWith(`${SCHEME}$`)) return true;
  const cost = bcryptCost(stored.slice(SCHEME.length + 1));
  return cost === null || cost < COST;
}

/** The cost field of a bcrypt hash (`$2b$11$…`): two digits in a fixed place, so read here rather than by a library. */
function bcryptCost(hash: string): number | null {
  const match = /^\$2[abxy]\$(\d\d)\$/.exec(hash);
  return match ? Number(match[1]) : null;
}

/** Verifies the scrypt hashes written before bcrypt (`scrypt$N$r$p$salt$hash`, base64url); constant-time. */
async function legacyScryptMatches(password: string, stored: string): Promise<boolean> {
  const [, n, r, p, salt, hash] = stored.split('$');
  const options: ScryptOptions = { N: Number(n), r: Number(r), p: Number(p) };
  if (
    !Number.isInteger(options.N) ||
    !Number.isInteger(options.r) ||
    !Number.isInteger(options.p) ||
    salt === undefined ||
    hash === undefined
  )
    return false;
  const expected = Buffer.from(hash, 'base64url');
  if (expected.length === 0) return false;
  const key = await new Promise<Buffer | null>((resolve) => {
    scrypt(
      password.normalize('NFC'),
      Buffer.from(salt, 'base64url'),
      expected.length,
      { ...options, maxmem: 256 * options.N! * options.r! },
      (error, derived) => resolve(error ? null : derived),
    );
  });
  return key !== null && key.length === expected.length && timingSafeEqual(key, expected);
}
