/**
 * Login-password checks of sign-ins, bounded per site (and so per process). Each check is a deliberately slow
 * bcrypt run on libuv's thread pool (loginPassword.ts), which file reads, zlib and DNS share:
 * only a few run at once, a few more wait their turn, and beyond that a sign-in is refused at once
 * (`SignInChecksBusy`, answered 503 with Retry-After) rather than queued without limit.
 */
import pLimit from 'p-limit';
import type { LimitFunction } from 'p-limit';
import { hashLoginPassword, loginPasswordMatches } from './loginPassword';

export interface LoginCheckBounds {
  /** Checks running at once; libuv's pool has 4 threads unless UV_THREADPOOL_SIZE says otherwise. */
  concurrent: number;
  /** Checks waiting for a turn; one more is refused. */
  queued: number;
}

export const DEFAULT_LOGIN_CHECK_BOUNDS: LoginCheckBounds = { concurrent: 2, queued: 16 };

/** A wait of a second: a check takes a fraction of that, so the queue has moved on by then. */
export const CHECKS_BUSY_RETRY_AFTER_SECONDS = 1;

export class SignInChecksBusy extends Error {
  constructor() {
    super('Too many sign-ins are being checked right now.');
  }
}

/** A hash no password is known for, so that an unknown login costs what a wrong password does; made once. */
let dummyHash: Promise<string> | null = null;

/** One check: whether the password matches the stored hash (null: no hash to match, so never). */
export type LoginCheck = (password: string, stored: string | null) => Promise<boolean>;

/** The real check; a null hash costs a check against a dummy one, so an unknown login takes as long as a known one. */
export const checkLoginPassword: LoginCheck = async (password, stored) => {
  if (stored !== null) return loginPasswordMatches(password, stored);
  await loginPasswordMatches(password, await (dummyHash ??= hashLoginPassword('no such user')));
  return false;
};

export class LoginChecks {
  private readonly limit: LimitFunction;

  constructor(
    private readonly bounds: LoginCheckBounds = DEFAULT_LOGIN_CHECK_BOUNDS,
    private readonly check: LoginCheck = checkLoginPassword,
  ) {
    this.limit = pLimit(bounds.concurrent);
  }

  /** Checks running or waiting now. */
  get inFlight(): number {
    return this.limit.activeCount + this.limit.pendingCount;
  }

  /**
   * Whether `password` matches `stored` (null: no such user, or no login password; never matches). Rejects with
   * SignInChecksBusy, having checked nothing, when the bound is reached.
   */
  matches(password: string, stored: string | null): Promise<boolean> {
    if (this.inFlight >= this.bounds.concurrent + this.bounds.queued) return Promise.reject(new SignInChecksBusy());
    return this.limit(() => this.check(password, stored));
  }
}

const checks = new WeakMap<object, LoginChecks>();

/** The site's bound on checks, created on first use. */
export function loginChecksFor(site: object): LoginChecks {
  let found = checks.get(site);
  if (!found) checks.set(site, (found = new LoginChecks()));
  return found;
}

/** Replaces a site's bound (a deployment's policy), and for a test the check itself. */
export function configureLoginChecks(site: object, bounds: LoginCheckBounds, check?: LoginCheck): LoginChecks {
  const found = new LoginChecks(bounds, check);
  checks.set(site, found);
  return found;
}
