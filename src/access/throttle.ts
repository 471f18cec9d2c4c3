/**
 * Throttling of sign-ins (HTTP Basic with an application password, and the authorization page's login form), in
 * memory, per process, on the site's clock. Two independent sliding windows of failures:
 *
 * - per client address: too many failures from one address (whatever the login) refuse that address;
 * - per login: too many failures against one login (from anywhere) refuse that login, but never from an
 *   address where it recently signed in successfully, so an attacker can slow a user down on new addresses
 *   but cannot lock them out from everywhere.
 *
 * An attempt counts as a failure from the moment it is admitted, so a burst of concurrent guesses cannot all pass
 * the check before the first is judged. A success takes back only the failures of the same login from the same
 * address (a user's own typos): one's own account signing in does not clear the failures one made against others.
 * A refused attempt is not judged at all (so guessing cannot go on behind the 429) and does not count.
 */
import type { Clock } from '../ports/clock';

export interface ThrottleWindow {
  /** Failures allowed within the window; the next attempt is refused. */
  failures: number;
  windowMs: number;
}

export interface ThrottleOptions {
  perAddress: ThrottleWindow;
  perLogin: ThrottleWindow;
  /** How long a successful sign-in exempts its address from that login's limit. */
  trustAddressMs: number;
  /** Bound on remembered keys of each kind; the least recently touched are forgotten first. */
  maxEntries: number;
}

/** An address may serve many people (a NAT, an office), so it gets more room than a single login. */
export const DEFAULT_THROTTLE: ThrottleOptions = {
  perAddress: { failures: 50, windowMs: 60_000 },
  perLogin: { failures: 10, windowMs: 60_000 },
  trustAddressMs: 30 * 24 * 60 * 60 * 1000,
  maxEntries: 10_000,
};

/** An admitted attempt. It stays counted as a failure unless it is declared a success or abandoned. */
export interface SignInAttempt {
  succeeded(): void;
  /** Never judged (the check itself could not be made): counted neither way. */
  abandoned(): void;
}

export type Admission = { admitted: true; attempt: SignInAttempt } | { admitted: false; retryAfterMs: number };

/** One failure (or attempt not yet judged), listed under its address and under its login. */
interface Failure {
  at: number;
  login: string;
  address: string;
}

/** Insertion-ordered map used as an LRU: touching a key moves it to the end. */
class Recent<V> {
  private readonly entries = new Map<string, V>();
  constructor(private readonly max: number) {}

  get(key: string): V | undefined {
    return this.entries.get(key);
  }

  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    while (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
  }

  delete(key: string): void {
    this.entries.delete(key);
  }
}

export class SignInThrottle {
  private readonly byAddress: Recent<Failure[]>;
  private readonly byLogin: Recent<Failure[]>;
  /** `login\naddress` -> time of the last success. */
  private readonly trusted: Recent<number>;

  constructor(
    private readonly clock: Clock,
    private readonly options: ThrottleOptions = DEFAULT_THROTTLE,
  ) {
    this.byAddress = new Recent(options.maxEntries);
    this.byLogin = new Recent(options.maxEntries);
    this.trusted = new Recent(options.maxEntries);
  }

  /** Milliseconds until an attempt for `login` from `address` may be made, or 0 when it may be made now. */
  retryAfterMs(login: string, address: string): number {
    const now = this.clock.now();
    const name = normalise(login);
    let wait = this.wait(this.byAddress, address, this.options.perAddress, now);
    if (!this.isTrusted(name, address, now))
      wait = Math.max(wait, this.wait(this.byLogin, name, this.options.perLogin, now));
    return wait;
  }

  /** Admits an attempt (counted as a failure until told otherwise), or refuses it with the time to wait. */
  admit(login: string, address: string): Admission {
    const retryAfterMs = this.retryAfterMs(login, address);
    if (retryAfterMs > 0) return { admitted: false, retryAfterMs };
    const now = this.clock.now();
    const failure: Failure = { at: now, login: normalise(login), address };
    this.record(this.byAddress, address, failure, this.options.perAddress, now);
    this.record(this.byLogin, failure.login, failure, this.options.perLogin, now);
    return {
      admitted: true,
      attempt: {
        succeeded: () => this.succeeded(failure),
        abandoned: () => {
          this.remove(this.byAddress, address, (f) => f === failure);
          this.remove(this.byLogin, failure.login, (f) => f === failure);
        },
      },
    };
  }

  private succeeded({ login, address }: Failure): void {
    this.remove(this.byAddress, address, (f) => f.login === login);
    this.remove(this.byLogin, login, (f) => f.address === address);
    this.trusted.set(`${login}\n${address}`, this.clock.now());
  }

  private isTrusted(login: string, address: string, now: number): boolean {
    const since = this.trusted.get(`${login}\n${address}`);
    return since !== undefined && now - since < this.options.trustAddressMs;
  }

  private recent(map: Recent<Failure[]>, key: string, window: ThrottleWindow, now: number): Failure[] {
    return (map.get(key) ?? []).filter((failure) => now - failure.at < window.windowMs);
  }

  private wait(map: Recent<Failure[]>, key: string, window: ThrottleWindow, now: number): number {
    const failures = this.recent(map, key, window, now);
    if (failures.length < window.failures) return 0;
    // Refused until enough failures have left the window to make room for one more attempt.
    const oldestThatMustExpire = failures[failures.length - window.failures]!;
    return oldestThatMustExpire.at + window.windowMs - now;
  }

  private record(map: Recent<Failure[]>, key: string, failure: Failure, window: ThrottleWindow, now: number): void {
    const failures = this.recent(map, key, window, now);
    failures.push(failure);
    // Only the last `failures` of them can ever matter.
    map.set(key, failures.slice(-window.failures));
  }

  private remove(map: Recent<Failure[]>, key: string, taken: (failure: Failure) => boolean): void {
    const failures = map.get(key)?.filter((failure) => !taken(failure));
    if (failures === undefined) return;
    // A key with nothing left is forgotten, so signed-in clients leave nothing behind.
    if (failures.length === 0) map.delete(key);
    else map.set(key, failures);
  }
}

const normalise = (login: string): string => login.trim().toLowerCase();

/** One throttle per site (and so per process), created on first use. */
const throttles = new WeakMap<object, SignInThrottle>();

export function throttleFor(site: { clock: Clock }): SignInThrottle {
  let throttle = throttles.get(site);
  if (!throttle) {
    throttle = new SignInThrottle(site.clock);
    throttles.set(site, throttle);
  }
  return throttle;
}

/** Replaces a site's throttle with one using other limits (a deployment's policy, or a test's). */
export function configureThrottle(site: { clock: Clock }, options: ThrottleOptions): SignInThrottle {
  const throttle = new SignInThrottle(site.clock, options);
  throttles.set(site, throttle);
  return throttle;
}

/** Retry-After is in whole seconds, at least one. */
export const retryAfterSeconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));
