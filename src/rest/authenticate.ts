/**
 * HTTP Basic with an application password. Runs before routing, so bad credentials get a 401 on every route
 * (WordPress 6.1 would silently treat the caller as anonymous; we tell a client that its password is wrong).
 * Repeated failures are throttled (src/access/throttle.ts), and a password's use is recorded (at most daily) after the
 * request has been let in, off its critical path.
 */
import type { ReadModel } from '../ports/readModel';
import type { Site } from '../site';
import type { Actor } from '../access/capabilities';
import { isRole } from '../access/capabilities';
import { USAGE_RECORD_INTERVAL_MS, hashApplicationPassword } from '../access/applicationPasswords';
import { timingSafeEqual } from 'node:crypto';
import { retryAfterSeconds, throttleFor } from '../access/throttle';
import { RestError, restError } from './errors';
import type { UserDoc } from '../../projections/users';
import { readCurrent } from '../projection/written';
import { logger } from '../logger';
import type { CacheSize } from '../caches/budget';

export interface Authenticated {
  actor: Actor;
  user: UserDoc;
  /** uuid of the application password used. */
  applicationPassword: string;
}

/** The application password each authenticated actor signed in with (for `/application-passwords/introspect`). */
const passwordOfActor = new WeakMap<Actor, string>();

export const applicationPasswordOf = (actor: Actor): string | null => passwordOfActor.get(actor) ?? null;

export interface FoundUser {
  user: UserDoc | null;
  /** The name was taken for an email address (no login has it). */
  byEmail: boolean;
}

export async function findUserByLoginOrEmail(readModel: ReadModel, name: string): Promise<FoundUser> {
  const lookup = async (field: 'login' | 'email') => {
    const { items } = await readModel.query('user', {
      filters: [{ kind: 'any', field, values: [name.toLowerCase()] }],
      order: { kind: 'field', field: 'id', direction: 'asc' },
      offset: 0,
      limit: 1,
    });
    return (items[0] as UserDoc | undefined) ?? null;
  };
  const byLogin = await lookup('login');
  if (byLogin || !name.includes('@')) return { user: byLogin, byEmail: false };
  return { user: await lookup('email'), byEmail: true };
}

/** The projection whose documents sign-ins are judged by. */
const USERS_PROJECTION = 'users';
/** How long an unknown name waits for the read model to reach the log's head before the sign-in is refused as unjudged. */
const SIGN_IN_CATCH_UP_MS = 2_000;
/** Retry-After of a sign-in that could not be judged. */
export const SIGN_IN_UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/** A sign-in that cannot be judged now: the users read model is not ready. It is not counted by the throttle. */
export class SignInUnavailable extends Error {
  override readonly name = 'SignInUnavailable';
}

/**
 * The account a sign-in names, as the log has it: a sign-in is never judged by users documents that may be stale or
 * missing. While the users projection is behind the others (being rebuilt, or stopped), the name is looked up there
 * and the account found is folded from its own stream (readCurrent), which is what the rebuilt projection will hold:
 * its passwords as they are now. A name not found there (an account created or renamed meanwhile), or no longer the
 * account's, cannot be judged (SignInUnavailable). Otherwise a name that is not found is looked up again once the
 * read model has applied everything the event store holds now (read-your-writes up to its head: an account another
 * process just created, such as the CLI, is found), and the sign-in is not judged when it cannot get there in time.
 */
export async function findSignInUser(
  site: Pick<Site, 'readModel' | 'store' | 'projector' | 'projectionBehind' | 'catchUp' | 'settings' | 'accounts'>,
  name: string,
): Promise<FoundUser> {
  const usersBehind = async () =>
    site.projector.names.includes(USERS_PROJECTION) && (await site.projectionBehind(USERS_PROJECTION));
  if (await usersBehind()) return foldedSignInUser(site, name);
  const found = await findUserByLoginOrEmail(site.readModel, name);
  if (found.user) return found;
  if (!(await site.catchUp(Math.min(SIGN_IN_CATCH_UP_MS, site.settings.readYourWritesTimeoutMs)))) {
    throw new SignInUnavailable("the site's accounts are behind the log");
  }
  if (await usersBehind()) return foldedSignInUser(site, name);
  return findUserByLoginOrEmail(site.readModel, name);
}

/** While the users projection is behind: the account by name from its documents, as its own stream has it now. */
async function foldedSignInUser(
  site: Pick<Site, 'readModel' | 'store' | 'projector' | 'projectionBehind' | 'accounts'>,
  name: string,
): Promise<FoundUser> {
  const found = await findUserByLoginOrEmail(site.readModel, name);
  if (!found.user) throw new SignInUnavailable("the site's accounts are being rebuilt");
  const { id } = found.user;
  const current = await readCurrent<UserDoc>(site, {
    projection: USERS_PROJECTION,
    collection: 'user',
    id,
    stream: site.accounts.streamOf(id),
  });
  const named = name.toLowerCase();
  if (!current || (found.byEmail ? current.email?.toLowerCase() !== named : current.login.toLowerCase() !== named)) {
    throw new SignInUnavailable("the site's accounts are being rebuilt");
  }
  return { user: current, byEmail: found.byEmail };
}

/** The login and password of a Basic header; null when the header is not Basic; no password without a colon. */
export function parseBasic(authorization: string | undefined): BasicCredentials | null {
  if (!authorization || !/^basic /i.test(authorization)) return null;
  const decoded = Buffer.from(authorization.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return { name: decoded, password: null };
  return { name: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

interface BasicCredentials {
  name: string;
  password: string | null;
}

/**
 * Per read model (so per site): presented password → its HMAC under the site's secret. The HMAC is a pure
 * function of the two, so a cached one is never stale; whether it opens an account is decided on every request
 * against the user's current password hashes, so a revoked password fails on the next request. Bounded by the
 * site's cache budget (src/caches/budget.ts, `passwordHashes`): emptied when full (clients reuse a handful of
 * passwords).
 */
const presentedHashes = new WeakMap<ReadModel, Map<string, Buffer>>();

function presentedHash(readModel: ReadModel, secret: string, password: string, kept: number): Buffer {
  let cache = presentedHashes.get(readModel);
  if (!cache) presentedHashes.set(readModel, (cache = new Map()));
  const key = `${secret.length}:${secret}\u0000${password}`;
  let hash = cache.get(key);
  if (hash === undefined) {
    hash = Buffer.from(hashApplicationPassword(secret, password), 'hex');
    if (cache.size >= kept) cache.clear();
    if (kept > 0) cache.set(key, hash);
  }
  return hash;
}

/** The password hashes kept now for a read model. */
export const passwordHashesHeld = (readModel: ReadModel): CacheSize => ({
  entries: presentedHashes.get(readModel)?.size ?? 0,
});

const hashMatches = (presented: Buffer, storedHash: string): boolean => {
  const stored = Buffer.from(storedHash, 'hex');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
};

/** Whether the password is one of the named user's application passwords; throws a 401 RestError when not. */
function checkBasic(
  readModel: ReadModel,
  secret: string,
  password: string | null,
  { user, byEmail }: FoundUser,
  hashesKept: number,
): Authenticated {
  if (password === null)
    throw restError('incorrect_password', 'The provided password is an invalid application password.', 401);
  if (!user) {
    throw byEmail
      ? restError(
          'invalid_email',
          '<strong>Error:</strong> Unknown email address. Check again or try your username.',
          401,
        )
      : restError(
          'invalid_username',
          '<strong>Error:</strong> Unknown username. Check again or try your email address.',
          401,
        );
  }
  const presented = presentedHash(readModel, secret, password, hashesKept);
  const match = user.application_passwords.find((p) => hashMatches(presented, p.passwordHash));
  if (!match) throw restError('incorrect_password', 'The provided password is an invalid application password.', 401);
  const actor: Actor = { id: user.id, roles: user.roles.filter(isRole) };
  passwordOfActor.set(actor, match.uuid);
  return { actor, user, applicationPassword: match.uuid };
}

/** What authentication needs from an HTTP request (Koa's context has it). */
export interface HttpExchange {
  get(header: string): string;
  /** The client's address (src/http/clientAddress.ts: X-Forwarded-For believed only through trusted proxies). */
  ip: string;
  set(header: string, value: string): void;
}

/**
 * Authenticates a request as the app does it: throttled (429 with Retry-After, before any password is
 * checked), then HTTP Basic, then the password's use recorded in the background.
 */
export async function authenticateRequest(
  site: Site,
  http: HttpExchange,
  requestId: string,
): Promise<Authenticated | null> {
  const credentials = parseBasic(http.get('authorization') || undefined);
  return credentials ? authenticateCredentials(site, http, requestId, credentials) : null;
}

async function authenticateCredentials(
  site: Site,
  http: HttpExchange,
  requestId: string,
  credentials: BasicCredentials,
): Promise<Authenticated> {
  const address = http.ip;
  let found: FoundUser;
  try {
    found = await findSignInUser(site, credentials.name);
  } catch (error) {
    if (!(error instanceof SignInUnavailable)) throw error;
    http.set('Retry-After', String(SIGN_IN_UNAVAILABLE_RETRY_AFTER_SECONDS));
    throw restError(
      'rest_sign_in_unavailable',
      "Sign-ins cannot be checked right now: the site's accounts are being brought up to date. Try again shortly.",
      503,
    );
  }
  // Counted per account, whichever of its names (login or email) is given.
  const admission = throttleFor(site).admit(found.user?.login ?? credentials.name, address);
  if (!admission.admitted) {
    const seconds = retryAfterSeconds(admission.retryAfterMs);
    http.set('Retry-After', String(seconds));
    throw restError(
      'rest_too_many_requests',
      `Too many failed sign-in attempts. Try again in ${seconds} seconds.`,
      429,
    );
  }
  const { attempt } = admission;
  let authenticated: Authenticated;
  try {
    authenticated = checkBasic(
      site.readModel,
      site.settings.authSecret,
      credentials.password,
      found,
      site.caches.budget.entries('passwordHashes'),
    );
  } catch (error) {
    // A 401 stays counted as the failure it was admitted as; anything else judged nothing.
    if (!(error instanceof RestError && error.status === 401)) attempt.abandoned();
    throw error;
  }
  attempt.succeeded();
  noteUse(site, authenticated, address, requestId);
  return authenticated;
}

/** Per site: uuids whose use is being recorded right now, so concurrent requests append it once. */
const recording = new WeakMap<Site, Set<string>>();

/** Records the use when the last record is a day old or more; never awaited by the request. */
function noteUse(site: Site, authenticated: Authenticated, address: string, requestId: string): void {
  const password = authenticated.user.application_passwords.find((p) => p.uuid === authenticated.applicationPassword);
  if (!password) return;
  if (password.last_used !== null && Date.parse(password.last_used) + USAGE_RECORD_INTERVAL_MS > site.clock.now())
    return;
  let pending = recording.get(site);
  if (!pending) recording.set(site, (pending = new Set()));
  if (pending.has(password.uuid)) return;
  pending.add(password.uuid);
  void site.accounts
    .recordApplicationPasswordUse(site, authenticated.user.id, password.uuid, address || null, requestId)
    .catch((error: unknown) =>
      logger.warn({ requestId, err: error }, 'could not record the use of an application password'),
    )
    .finally(() => pending.delete(password.uuid));
}
