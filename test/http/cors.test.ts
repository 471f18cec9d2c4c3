/**
 * CORS (src/http/cors.ts) as WordPress 6.1 sends it on REST answers, black-box: the origin echoed with the methods
 * and credentials on reads, writes, errors, preflights and answers from the shared response cache (each with the
 * origin of its own request), `Vary: Origin` always, `X-HTTP-Method-Override` allowed, `Allow` and `Retry-After` exposed, and
 * CORS_ALLOWED_ORIGINS restricting which origins are echoed.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestResponse, TestSite, TestUser } from '../support/testSite';
import { ConfigError, loadConfig } from '../../src/config';

const FRONT = 'http://localhost:3000';
const METHODS = 'OPTIONS, GET, POST, PUT, PATCH, DELETE';

/** Requests the shared response cache answered so far, from /metrics. */
async function cacheHits(t: TestSite): Promise<number> {
  const text = (await t.request('GET', '/metrics')).text;
  return Number(/^palimpsest_response_cache_hits_total (\d+)$/m.exec(text)?.[1] ?? NaN);
}

function assertEchoes(response: TestResponse, origin: string, what: string): void {
  assert.is(response.headers.get('access-control-allow-origin'), origin, what);
  assert.is(response.headers.get('access-control-allow-methods'), METHODS, what);
  assert.is(response.headers.get('access-control-allow-credentials'), 'true', what);
  assert.is(response.headers.get('vary'), 'Origin', what);
}

function assertNoOrigin(response: TestResponse, what: string): void {
  assert.is(response.headers.get('access-control-allow-origin'), null, what);
  assert.is(response.headers.get('access-control-allow-credentials'), null, what);
  assert.is(response.headers.get('access-control-allow-methods'), null, what);
  // The request-independent lines are there all the same, as in WordPress.
  assert.is(response.headers.get('vary'), 'Origin', what);
  assert.is(
    response.headers.get('access-control-expose-headers'),
    'X-WP-Total, X-WP-TotalPages, Link, Allow, Retry-After, Idempotent-Replayed',
    what,
  );
}

const any = suite('CORS, any origin (the default)');
let t: TestSite;
let admin: TestUser;
any.before(async () => {
  t = await startTestSite();
  admin = await t.createUser('admin', 'administrator');
  const created = await t.request('POST', '/core/v2/posts', { as: admin, body: { title: 'Hello', status: 'publish' } });
  assert.is(created.status, 201);
});
any.after(() => t.close());

any(
  'a read with an Origin gets it echoed, with the methods, credentials, and the headers a client may send and read',
  async () => {
    const response = await t.request('GET', '/core/v2/posts', { headers: { origin: FRONT } });
    assert.is(response.status, 200);
    assertEchoes(response, FRONT, 'GET');
    assert.is(
      response.headers.get('access-control-expose-headers'),
      'X-WP-Total, X-WP-TotalPages, Link, Allow, Retry-After, Idempotent-Replayed',
    );
    assert.is(
      response.headers.get('access-control-allow-headers'),
      'Authorization, X-WP-Nonce, Content-Disposition, Content-MD5, Content-Type, X-HTTP-Method-Override, Idempotency-Key',
    );
  },
);

any('without an Origin nothing is echoed', async () => {
  assertNoOrigin(await t.request('GET', '/core/v2/posts'), 'GET without Origin');
  assertNoOrigin(await t.request('GET', '/no/such/route'), '404 without Origin');
});

any('writes and errors carry it too: a create, a refused create, no route, invalid JSON', async () => {
  const created = await t.request('POST', '/core/v2/posts', {
    as: admin,
    body: { title: 'Cross-origin' },
    headers: { origin: FRONT },
  });
  assert.is(created.status, 201);
  assertEchoes(created, FRONT, 'create');
  const refused = await t.request('POST', '/core/v2/posts', {
    body: { title: 'Anonymous' },
    headers: { origin: FRONT },
  });
  assert.is(refused.status, 401);
  assertEchoes(refused, FRONT, '401');
  const missing = await t.request('GET', '/no/such/route', { headers: { origin: FRONT } });
  assert.is(missing.status, 404);
  assertEchoes(missing, FRONT, '404');
  const invalid = await t.request('POST', '/core/v2/posts', {
    as: admin,
    raw: { data: '{', type: 'application/json' },
    headers: { origin: FRONT },
  });
  assert.is(invalid.status, 400);
  assertEchoes(invalid, FRONT, 'invalid JSON');
});

any('a throttled sign-in is answered with the origin and a Retry-After the page may read', async () => {
  const target = await t.createUser('guessed', 'author');
  const wrong = {
    authorization: `Basic ${Buffer.from(`${target.login}:not-the-password`).toString('base64')}`,
    origin: FRONT,
  };
  let response: TestResponse | null = null;
  for (let i = 0; i < 11 && response?.status !== 429; i++)
    response = await t.request('GET', '/core/v2/users/me', { headers: wrong });
  assert.is(response!.status, 429);
  assert.is(response!.body.code, 'rest_too_many_requests');
  assertEchoes(response!, FRONT, '429');
  assert.match(response!.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
  assert.ok(response!.headers.get('access-control-expose-headers')!.split(', ').includes('Retry-After'));
});

any('a preflight is answered by the route, with the CORS headers, in both dialects', async () => {
  for (const path of ['/core/v2/posts', '/wp-json/wp/v2/posts', '/core/v2/posts/1']) {
    const preflight = await t.request('OPTIONS', path, {
      headers: {
        origin: FRONT,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, x-http-method-override',
      },
    });
    assert.is(preflight.status, 200, path);
    assertEchoes(preflight, FRONT, path);
    assert.match(preflight.headers.get('access-control-allow-headers')!, /X-HTTP-Method-Override/);
  }
});

any(
  'answers from the shared response cache carry the origin of the request they answer, and none without one',
  async () => {
    const path = '/core/v2/posts?per_page=5';
    const first = await t.request('GET', path, { headers: { origin: 'https://one.example' } });
    assertEchoes(first, 'https://one.example', 'computed');
    const before = await cacheHits(t);
    const second = await t.request('GET', path, { headers: { origin: 'https://two.example' } });
    const bare = await t.request('GET', path);
    assert.is(await cacheHits(t), before + 2, 'both answered from the cache');
    assertEchoes(second, 'https://two.example', 'cached, another origin');
    assertNoOrigin(bare, 'cached, no origin');
    assert.is(second.text, first.text);
  },
);

any.run();

const restricted = suite('CORS, CORS_ALLOWED_ORIGINS');
let r: TestSite;
restricted.before(async () => {
  r = await startTestSite({ corsAllowedOrigins: ['https://front.example'] });
});
restricted.after(() => r.close());

restricted('an allowed origin is echoed, any other is not, on computed and cached answers and on errors', async () => {
  const path = '/core/v2/posts';
  assertEchoes(
    await r.request('GET', path, { headers: { origin: 'https://front.example' } }),
    'https://front.example',
    'allowed',
  );
  const before = await cacheHits(r);
  const other = await r.request('GET', path, { headers: { origin: 'https://evil.example' } });
  assert.is(await cacheHits(r), before + 1, 'from the cache');
  assertNoOrigin(other, 'not allowed, cached');
  assertNoOrigin(
    await r.request('GET', '/no/such/route', { headers: { origin: 'https://evil.example' } }),
    'not allowed, 404',
  );
  assertNoOrigin(await r.request('OPTIONS', path, { headers: { origin: 'http://front.example' } }), 'another scheme');
  assertEchoes(
    await r.request('OPTIONS', path, { headers: { origin: 'https://FRONT.example' } }),
    'https://FRONT.example',
    'host without case',
  );
});

restricted.run();

const config = suite('CORS_ALLOWED_ORIGINS and API_DIALECT settings');

config('CORS_ALLOWED_ORIGINS: empty or * is any origin, else a list of origins; anything else refuses to start', () => {
  assert.is(loadConfig({}, '/tmp').corsAllowedOrigins, null);
  assert.is(loadConfig({ CORS_ALLOWED_ORIGINS: '*' }, '/tmp').corsAllowedOrigins, null);
  assert.equal(
    loadConfig({ CORS_ALLOWED_ORIGINS: 'https://a.example, http://localhost:3000' }, '/tmp').corsAllowedOrigins,
    ['https://a.example', 'http://localhost:3000'],
  );
  for (const value of ['a.example', 'https://a.example/path', 'ftp://a.example', 'https://a.example,*']) {
    assert.throws(
      () => loadConfig({ CORS_ALLOWED_ORIGINS: value }, '/tmp'),
      (error: unknown) => error instanceof ConfigError && /CORS_ALLOWED_ORIGINS/.test((error as Error).message),
      value,
    );
  }
});

config('API_DIALECT: core by default, or wordpress; anything else refuses to start', () => {
  assert.is(loadConfig({}, '/tmp').apiDialect, 'core');
  assert.is(loadConfig({ API_DIALECT: 'wordpress' }, '/tmp').apiDialect, 'wordpress');
  assert.throws(
    () => loadConfig({ API_DIALECT: 'wp' }, '/tmp'),
    (error: unknown) => error instanceof ConfigError && /API_DIALECT/.test((error as Error).message),
  );
});

config.run();
