/**
 * The pieces of signing in, pure or nearly: login-password hashing (bcrypt, and the earlier scrypt) and its checks
 * (off the event loop, bounded), usernames and nicenames, the sign-in throttle on a manual clock, the authorization
 * request's rules and its CSRF token.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHmac, randomBytes, scryptSync } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import bcryptjs from 'bcryptjs';
import { hashLoginPassword, loginPasswordMatches, loginPasswordNeedsRehash } from '../../src/access/loginPassword';
import { defaultDisplayName, isValidUsername, nicenameCandidates, nicenameFor } from '../../src/resources/users/names';
import { SignInThrottle } from '../../src/access/throttle';
import { LoginChecks, SignInChecksBusy, checkLoginPassword } from '../../src/access/loginChecks';
import { manualClock } from '../../src/ports/clock';
import { readAuthorizationRequest, requestProblems } from '../../src/authorize/request';
import { issueToken, newNonce, readCookie, tokenIsValid } from '../../src/authorize/token';

const test = suite('users: signing in');

test('login passwords: bcrypt (cost 11) with a per-hash salt; only the right password matches', async () => {
  const first = await hashLoginPassword('correct horse');
  const second = await hashLoginPassword('correct horse');
  assert.match(first, /^bcrypt-sha384\$\$2b\$11\$[./A-Za-z0-9]{53}$/);
  assert.is.not(first, second);
  assert.ok(await loginPasswordMatches('correct horse', first));
  assert.ok(await loginPasswordMatches('correct horse', second));
  assert.not.ok(await loginPasswordMatches('correct horse!', first));
  assert.not.ok(await loginPasswordMatches('', first));
  assert.not.ok(await loginPasswordMatches('correct horse', null));
  assert.not.ok(await loginPasswordMatches('correct horse', 'md5$abc'));
  assert.not.ok(await loginPasswordMatches('correct horse', 'bcrypt-sha384$garbage'));
  assert.not.ok(loginPasswordNeedsRehash(first));
});

test('login passwords: the 72-byte limit of bcrypt does not cut a long passphrase short', async () => {
  const long = 'a'.repeat(80);
  const hash = await hashLoginPassword(long);
  assert.ok(await loginPasswordMatches(long, hash));
  assert.not.ok(await loginPasswordMatches(`${'a'.repeat(79)}b`, hash));
  assert.not.ok(await loginPasswordMatches('a'.repeat(72), hash));
});

test('login passwords: scrypt hashes of earlier versions still verify, and ask to be rehashed', async () => {
  const salt = randomBytes(16);
  const key = scryptSync('correct horse', salt, 32, { N: 2 ** 14, r: 8, p: 1 });
  const legacy = ['scrypt', 2 ** 14, 8, 1, salt.toString('base64url'), key.toString('base64url')].join('$');
  assert.ok(await loginPasswordMatches('correct horse', legacy));
  assert.not.ok(await loginPasswordMatches('wrong horse', legacy));
  assert.not.ok(await loginPasswordMatches('correct horse', 'scrypt$x$8$1$AAAA$AAAA'));
  assert.ok(loginPasswordNeedsRehash(legacy));
  assert.ok(loginPasswordNeedsRehash('bcrypt-sha384$$2b$10$' + 'a'.repeat(53)));
});

test('login passwords: hashes written by bcryptjs (earlier versions) verify unchanged', async () => {
  const condensed = createHmac('sha384', 'palimpsest-login-password').update('correct horse', 'utf8').digest('base64');
  for (const written of [
    bcryptjs.hashSync(condensed, 4),
    bcryptjs.hashSync(condensed, 11).replace(/^\$2b\$/, '$2a$'),
  ]) {
    const stored = `bcrypt-sha384$${written}`;
    assert.ok(await loginPasswordMatches('correct horse', stored), written);
    assert.not.ok(await loginPasswordMatches('correct horse!', stored), written);
  }
  assert.ok(loginPasswordNeedsRehash(`bcrypt-sha384$${bcryptjs.hashSync(condensed, 4)}`));
});

test('login-password checks run off the event loop: it turns, and an unrelated request is answered, while they are in flight', async () => {
  const hash = await hashLoginPassword('correct horse');
  const server = http.createServer((_, response) => response.end('unrelated'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    let settled = 0;
    const checks = Array.from({ length: 4 }, () => loginPasswordMatches('wrong horse', hash).finally(() => settled++));
    // Each turn of the loop runs between checks run on the loop itself; checks on other threads leave it free.
    for (let turns = 0; turns < 200; turns++) await new Promise((resolve) => setImmediate(resolve));
    const answer = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`).then((response) =>
      response.text(),
    );
    assert.is(answer, 'unrelated');
    assert.is(settled, 0, 'the loop turned 200 times and answered a request before any check finished');
    assert.equal(await Promise.all(checks), [false, false, false, false]);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

test('login-password checks are bounded: beyond the running and waiting ones, a check is refused at once', async () => {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let started = 0;
  const checks = new LoginChecks({ concurrent: 2, queued: 1 }, async (password) => {
    started++;
    await gate;
    return password === 'right';
  });
  const admitted = [checks.matches('right', 'h'), checks.matches('wrong', 'h'), checks.matches('right', 'h')];
  assert.is(checks.inFlight, 3);
  const refused = await checks.matches('right', 'h').then(
    () => null,
    (error: unknown) => error,
  );
  assert.instance(refused, SignInChecksBusy);
  await new Promise((resolve) => setImmediate(resolve));
  assert.is(started, 2, 'two run, one waits');
  open();
  assert.equal(await Promise.all(admitted), [true, false, true]);
  assert.is(checks.inFlight, 0);
  assert.ok(await checks.matches('right', 'h'));
});

test('the real check: an unknown login (no hash) costs a check and never matches', async () => {
  assert.not.ok(await checkLoginPassword('no such user', null));
  assert.ok(await checkLoginPassword('correct horse', await hashLoginPassword('correct horse')));
});

test('usernames and nicenames as WordPress accepts and derives them', () => {
  for (const ok of ['ada', 'Ada Lovelace', 'a.b-c_d@e']) assert.ok(isValidUsername(ok), ok);
  for (const bad of ['', 'bad*name', ' padded', 'two  spaces', 'émile', '<b>x</b>'])
    assert.not.ok(isValidUsername(bad), bad);
  assert.is(nicenameFor('Ada Lovelace', undefined), 'ada-lovelace');
  assert.is(nicenameFor('ada', 'Émile Zola!'), 'emile-zola');
  assert.is(nicenameFor('x'.repeat(60), undefined), 'x'.repeat(50));
  const candidates = nicenameCandidates('y'.repeat(50))[Symbol.iterator]();
  assert.is(candidates.next().value, 'y'.repeat(50));
  assert.is(candidates.next().value, `${'y'.repeat(48)}-2`);
  assert.is(defaultDisplayName('ada', 'Ada', 'Lovelace'), 'Ada Lovelace');
  assert.is(defaultDisplayName('ada', '', 'Lovelace'), 'Lovelace');
  assert.is(defaultDisplayName('ada', '', ''), 'ada');
});

/** An attempt judged a failure (admitted attempts stay counted) or a success; both must be admitted. */
function fail(throttle: SignInThrottle, login: string, address: string): void {
  assert.ok(throttle.admit(login, address).admitted, `${login} from ${address} admitted`);
}
function succeed(throttle: SignInThrottle, login: string, address: string): void {
  const admission = throttle.admit(login, address);
  if (!admission.admitted) assert.unreachable(`${login} from ${address} refused`);
  else admission.attempt.succeeded();
}

test('throttle: a sliding window per address and per login; trusted addresses pass the login limit', () => {
  const clock = manualClock(0);
  const throttle = new SignInThrottle(clock, {
    perAddress: { failures: 3, windowMs: 10_000 },
    perLogin: { failures: 2, windowMs: 10_000 },
    trustAddressMs: 60_000,
    maxEntries: 10,
  });
  succeed(throttle, 'ada', 'home');
  fail(throttle, 'ada', 'a');
  clock.advance(1000);
  fail(throttle, 'ADA', 'b');
  // Two failures for `ada`: new addresses wait until the first failure is 10 s old; home does not.
  assert.is(throttle.retryAfterMs('ada', 'c'), 9000);
  assert.equal(throttle.admit('ada', 'c'), { admitted: false, retryAfterMs: 9000 });
  assert.is(throttle.retryAfterMs('ada', 'home'), 0);
  assert.is(throttle.retryAfterMs('grace', 'c'), 0);
  clock.advance(9000);
  assert.is(throttle.retryAfterMs('ada', 'c'), 0);
  // Per address, whatever the login.
  fail(throttle, 'x', 'd');
  fail(throttle, 'y', 'd');
  fail(throttle, 'w', 'd');
  assert.is(throttle.retryAfterMs('z', 'd'), 10_000);
  // Trust expires.
  clock.advance(61_000);
  fail(throttle, 'ada', 'e');
  fail(throttle, 'ada', 'e');
  assert.ok(throttle.retryAfterMs('ada', 'home') > 0);
});

test('throttle: a success takes back only the failures of that login from that address', () => {
  const clock = manualClock(0);
  const throttle = new SignInThrottle(clock, {
    perAddress: { failures: 3, windowMs: 10_000 },
    perLogin: { failures: 3, windowMs: 10_000 },
    trustAddressMs: 60_000,
    maxEntries: 10,
  });
  // The attacker's own account signing in between guesses clears nothing of the guesses against others…
  fail(throttle, 'victim', 'd');
  fail(throttle, 'other', 'd');
  succeed(throttle, 'attacker', 'd');
  fail(throttle, 'victim', 'd');
  assert.is(throttle.retryAfterMs('attacker', 'd'), 10_000);
  // …nor of the guesses against a login from elsewhere.
  fail(throttle, 'mallory', 'x');
  fail(throttle, 'mallory', 'y');
  succeed(throttle, 'mallory', 'z');
  fail(throttle, 'mallory', 'w');
  assert.is(throttle.retryAfterMs('mallory', 'v'), 10_000);
  // A user's own typos, followed by the right password, are forgiven at their address.
  fail(throttle, 'typist', 'office');
  fail(throttle, 'typist', 'office');
  succeed(throttle, 'typist', 'office');
  fail(throttle, 'someone', 'office');
  fail(throttle, 'someone else', 'office');
  assert.is(throttle.retryAfterMs('anyone', 'office'), 0);
});

test('throttle: admitted attempts count at once, so concurrent attempts cannot outrun the limit; an abandoned one counts neither way', () => {
  const clock = manualClock(0);
  const throttle = new SignInThrottle(clock, {
    perAddress: { failures: 100, windowMs: 10_000 },
    perLogin: { failures: 3, windowMs: 10_000 },
    trustAddressMs: 60_000,
    maxEntries: 10,
  });
  const admissions = Array.from({ length: 5 }, () => throttle.admit('ada', 'a'));
  assert.equal(
    admissions.map((a) => a.admitted),
    [true, true, true, false, false],
  );
  const first = admissions[0]!;
  if (first.admitted) first.attempt.abandoned();
  assert.ok(throttle.admit('ada', 'a').admitted);
  assert.not.ok(throttle.admit('ada', 'a').admitted);
});

test('throttle: memory stays bounded by forgetting the least recently touched keys', () => {
  const clock = manualClock(0);
  const throttle = new SignInThrottle(clock, {
    perAddress: { failures: 1, windowMs: 10_000 },
    perLogin: { failures: 100, windowMs: 10_000 },
    trustAddressMs: 1,
    maxEntries: 2,
  });
  fail(throttle, 'a', '1');
  fail(throttle, 'b', '2');
  fail(throttle, 'c', '3');
  assert.is(throttle.retryAfterMs('q', '1'), 0);
  assert.is(throttle.retryAfterMs('q', '3'), 10_000);
  // Successes leave no key behind, so clients signing in do not push out the failures remembered.
  for (const address of ['4', '5', '6', '7']) succeed(throttle, 'z', address);
  assert.is(throttle.retryAfterMs('q', '3'), 10_000);
});

test('authorization requests: the reject URL defaults to the success URL with success=false; the URL rules', () => {
  assert.equal(readAuthorizationRequest({ app_name: ' App ', success_url: 'https://a.example/cb?x=1' }), {
    appName: 'App',
    appId: '',
    successUrl: 'https://a.example/cb?x=1',
    rejectUrl: 'https://a.example/cb?x=1&success=false',
  });
  assert.is(
    readAuthorizationRequest({ success_url: 'https://a.example/', reject_url: 'https://b.example/' }).rejectUrl,
    'https://b.example/',
  );
  assert.is(readAuthorizationRequest({}).rejectUrl, '');
  assert.is(readAuthorizationRequest({ app_name: ['array'] }).appName, '');
  const problems = (query: Record<string, string>) => requestProblems(readAuthorizationRequest(query));
  assert.equal(problems({ success_url: 'https://a.example/', app_id: '1b4e28ba-2fa1-11d2-883f-0016d3cca427' }), []);
  assert.equal(problems({ success_url: 'http://127.0.0.9:8080/' }), []);
  assert.is(problems({ success_url: 'http://a.example/' }).length, 2);
  assert.is(problems({ success_url: 'data:text/html,x' }).length, 2);
  assert.is(problems({ success_url: 'ftp://a.example/' }).length, 2);
  assert.equal(problems({ app_id: '12345' }), ['The application id (app_id) must be a UUID.']);
});

test('CSRF tokens: bound to the nonce, the request and time', () => {
  const nonce = newNonce();
  const bound = ['', 'https://a.example/', 'https://a.example/?success=false'];
  const token = issueToken('secret', nonce, 1000, bound);
  assert.ok(tokenIsValid('secret', nonce, token, 1000, bound));
  assert.not.ok(tokenIsValid('other secret', nonce, token, 1000, bound));
  assert.not.ok(tokenIsValid('secret', newNonce(), token, 1000, bound));
  assert.not.ok(tokenIsValid('secret', undefined, token, 1000, bound));
  assert.not.ok(tokenIsValid('secret', nonce, token, 1000, ['', 'https://evil.example/', bound[2]!]));
  assert.not.ok(tokenIsValid('secret', nonce, token, 1000 + 30 * 60 * 1000, bound));
  assert.not.ok(
    tokenIsValid('secret', nonce, `${Number(token.split('.')[0]) + 1}.${token.split('.')[1]}`, 1000, bound),
  );
  assert.is(readCookie('a=1; palimpsest_authorize=abc; b=2', 'palimpsest_authorize'), 'abc');
  assert.is(readCookie(undefined, 'palimpsest_authorize'), undefined);
});

test.run();
