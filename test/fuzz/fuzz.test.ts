/**
 * The fuzz suite: for every route and method the index lists, a seeded sample of hostile requests generated from the
 * route's own argument schemas (test/support/fuzzRequests.ts): wrong types, polluting keys, deep nesting, huge and
 * odd strings, malformed and oversized bodies, hostile file names and image headers, forged credentials and headers.
 *
 * It fails on any 5xx but WordPress's own, on an error that is not WordPress-shaped, on a header or content type a
 * polluting key put there, on a built-in prototype that gained a name, and if the site stops answering. The seed is
 * fixed, so a failure repeats; fast-check shrinks it to a small request and prints the seed and path to replay it.
 *
 *   FUZZ_RUNS=N   requests per route and method (default 4); FUZZ_SEED=S another seed (default fixed);
 *   FUZZ_ONLY=RE  only the routes whose `METHOD path-pattern` matches
 *
 * The long mode against a real server process, with its memory watched, is `npm run fuzz` (bench/fuzz.ts).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import sharp from 'sharp';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';
import { createRouteFixtures } from '../support/routeFixtures';
import type { RouteFixtures } from '../support/routeFixtures';
import { problemsWith, prototypeNames, requestsFor, sendFuzz } from '../support/fuzzRequests';
import type { Identity } from '../support/fuzzRequests';

const RUNS = Number(process.env.FUZZ_RUNS ?? 4);
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_129);
const ONLY = new RegExp(process.env.FUZZ_ONLY ?? '');

const test = suite('fuzz: hostile requests at every route, from the index schemas');
let t: TestSite;
let fixtures: RouteFixtures;
let author: TestUser;
let auth: Record<Identity, string | undefined>;
let prototypesBefore: string;
let sent = 0;

/** A seed per route and method, so that adding a route does not change what the others are sent. */
const seedOf = (key: string): number => [...key].reduce((h, c) => (Math.imul(h, 31) + c.charCodeAt(0)) | 0, SEED);

test.before(async () => {
  t = await startTestSite({ instance: 'second' });
  fixtures = await createRouteFixtures(t);
  author = await t.createUser('fuzzauthor', 'author');
  auth = {
    anonymous: undefined,
    admin: fixtures.admin.auth,
    author: author.auth,
    // Not a user: every such request is a failed sign-in, which the throttle counts (see `send`).
    forged: `Basic ${Buffer.from('nobody-fuzz:not a password').toString('base64')}`,
  };
  prototypesBefore = prototypeNames();
});
test.after(async () => t.close());

test('every route and method answers hostile requests without a 5xx, a malformed error or pollution', async () => {
  const pairs = fixtures.endpoints.flatMap((endpoint) => endpoint.methods.map((method) => [endpoint, method] as const));
  // Deletions last, so that earlier routes still find their fixtures.
  pairs.sort((a, b) => Number(a[1] === 'DELETE') - Number(b[1] === 'DELETE'));
  const chosen = pairs.filter(([endpoint, method]) => ONLY.test(`${method} ${endpoint.route}`));
  const failures: string[] = [];
  for (const [endpoint, method] of chosen) {
    try {
      await fc.assert(
        fc.asyncProperty(requestsFor(endpoint, method, fixtures.values), async (request) => {
          sent++;
          const answer = await sendFuzz(t.url, request, auth);
          // Failed sign-ins age out of the throttle's window at once, so the next requests are judged, not refused.
          if (request.as === 'forged') t.clock.advance(61_000);
          const problems = problemsWith(answer.status, answer.headers, answer.text);
          if (prototypeNames() !== prototypesBefore) problems.push('a built-in prototype changed');
          if (problems.length > 0) throw new Error(`${answer.status} ${problems.join('; ')}`);
        }),
        { seed: seedOf(`${method} ${endpoint.route}`), numRuns: RUNS, endOnFailure: true },
      );
    } catch (error) {
      // fast-check's report: the seed and path that replay it, the (shrunk) request, and what was wrong.
      // fast-check's report names the request and the seed and path that replay it; what was wrong is its cause.
      const report = String((error as Error).message).split('\nShrunk')[0]!;
      failures.push(`${method} ${endpoint.route}: ${String((error as Error).cause ?? '')}\n${report.slice(0, 1_500)}`);
    }
  }
  assert.equal(failures, [], `${failures.length} of ${chosen.length} routes and methods failed`);
  assert.ok(sent >= chosen.length * RUNS, `${sent} requests`);
});

test('afterwards the site still answers, unpolluted, and image processing still loads', async () => {
  const index = await t.request('GET', '/');
  assert.is(index.status, 200);
  assert.match(index.headers.get('content-type') ?? '', /^application\/json/);
  const me = await t.request('GET', '/core/v2/users/me', { as: author });
  assert.is(me.status, 200, me.text.slice(0, 200));
  assert.is(prototypeNames(), prototypesBefore);
  const png = await sharp({ create: { width: 2, height: 2, channels: 3, background: { r: 0, g: 0, b: 0 } } })
    .png()
    .toBuffer();
  assert.ok(png.length > 0);
});

test.run();
