import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Dispatcher, compileRoutePattern, literalPrefix } from '../../src/rest/dispatch';
import type { RestRequest, RouteDefinition } from '../../src/rest/route';

/** An item route whose rules count how often they are judged; the delete rule lets everyone through. */
function countingRoute() {
  const judged = { GET: 0, DELETE: 0 };
  const route: RouteDefinition = {
    namespace: 'test/v1',
    path: '/test/v1/things/(?P<id>[\\d]+)',
    endpoints: [
      {
        methods: ['GET'],
        args: {},
        permission: () => {
          judged.GET += 1;
          return true;
        },
        handle: () => ({ status: 200, body: { read: true } }),
      },
      {
        methods: ['DELETE'],
        args: {},
        permission: () => {
          judged.DELETE += 1;
          return true;
        },
        handle: () => ({ status: 200, body: { deleted: true } }),
      },
    ],
  };
  return { judged, dispatcher: new Dispatcher([route], { apiRoot: 'http://example.test/' }) };
}

const request = (method: string): RestRequest => ({
  method,
  path: '/test/v1/things/5',
  query: {},
  rawQuery: '',
  json: null,
  form: null,
  headers: {},
  actor: null,
  requestId: 'r',
});

test("Allow: a read judges its own endpoint once (before the handler), the route's other endpoints once each", async () => {
  for (const method of ['GET', 'HEAD']) {
    const { judged, dispatcher } = countingRoute();
    const result = await dispatcher.dispatch(request(method));
    assert.is(result.status, 200);
    assert.is(result.headers?.Allow, 'GET, DELETE');
    assert.equal(judged, { GET: 1, DELETE: 1 }, method);
  }
});

test("Allow: a write's own endpoint is judged again once it was answered", async () => {
  const { judged, dispatcher } = countingRoute();
  const result = await dispatcher.dispatch(request('DELETE'));
  assert.is(result.headers?.Allow, 'GET, DELETE');
  assert.equal(judged, { GET: 1, DELETE: 2 });
});

test('a rule that answers at once and one that waits give the same answer', async () => {
  const route = (waits: boolean): RouteDefinition => ({
    namespace: 'test/v1',
    path: '/test/v1/things/(?P<id>[\\d]+)',
    endpoints: [
      {
        methods: ['GET'],
        args: {},
        permission: () => (waits ? Promise.resolve(true) : true),
        handle: () => ({ status: 200, body: { read: true } }),
      },
      { methods: ['DELETE'], args: {}, permission: () => true, handle: () => ({ status: 200, body: null }) },
    ],
  });
  const now = await new Dispatcher([route(false)], { apiRoot: 'http://example.test/' }).dispatch(request('GET'));
  const later = await new Dispatcher([route(true)], { apiRoot: 'http://example.test/' }).dispatch(request('GET'));
  assert.equal(later, now);
  assert.equal(now, { status: 200, body: { read: true }, headers: { Allow: 'GET, DELETE' } });
});

test('Allow: endpoints judged in order, those after a rule that waits too; a rule that throws allows nothing', async () => {
  const order: string[] = [];
  const judge = (name: string, verdict: () => unknown) => () => {
    order.push(name);
    return verdict() as boolean;
  };
  const handle = () => ({ status: 200, body: null });
  const route: RouteDefinition = {
    namespace: 'test/v1',
    path: '/test/v1/things/(?P<id>[\\d]+)',
    endpoints: [
      { methods: ['GET'], args: {}, permission: judge('GET', () => true), handle },
      {
        methods: ['POST'],
        args: {},
        permission: judge('POST', () => new Promise((resolve) => setTimeout(() => resolve(true), 5))),
        handle,
      },
      {
        methods: ['PUT'],
        args: {},
        permission: judge('PUT', () => {
          throw new Error('broken rule');
        }),
        handle,
      },
      {
        methods: ['PATCH'],
        args: {},
        permission: judge('PATCH', () => Promise.reject(new Error('broken rule'))),
        handle,
      },
      { methods: ['DELETE'], args: {}, permission: judge('DELETE', () => true), handle },
    ],
  };
  const result = await new Dispatcher([route], { apiRoot: 'http://example.test/' }).dispatch(request('GET'));
  assert.is(result.headers?.Allow, 'GET, POST, DELETE');
  assert.equal(order, ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
});

test('literalPrefix: the plain start of a pattern, lower-cased, without an optional last character or alternation', () => {
  assert.is(literalPrefix('/core/v2/posts/(?P<id>[\\d]+)'), '/core/v2/posts/');
  assert.is(literalPrefix('/core/v2/Users/me'), '/core/v2/users/me');
  assert.is(literalPrefix('/core/v2/posts?'), '/core/v2/post');
  assert.is(literalPrefix('/core/v2/posts*'), '/core/v2/post');
  assert.is(literalPrefix('/core/v2/pos{2}'), '/core/v2/po');
  assert.is(literalPrefix('/a/b|/c/d'), '');
  assert.is(literalPrefix('/core/v2/.+'), '/core/v2/');
  assert.is(literalPrefix('/core/v2/\\w+'), '/core/v2/');
  assert.is(literalPrefix('(?P<any>.*)'), '');
  // Every path a pattern matches starts with its prefix, in any case.
  for (const [pattern, paths] of [
    ['/core/v2/posts?', ['/core/v2/post', '/CORE/v2/POSTS']],
    ['/core/v2/posts/(?P<id>[\\d]+)', ['/core/v2/posts/5', '/Core/V2/Posts/12']],
    ['/wp/(?:a|b)/x', ['/wp/a/x', '/WP/B/X']],
  ] as const) {
    for (const path of paths) {
      assert.ok(compileRoutePattern(pattern).test(path), `${pattern} ${path}`);
      assert.ok(path.toLowerCase().startsWith(literalPrefix(pattern)), `${pattern} ${path}`);
    }
  }
});

test('match: routes are found whatever the case of the path, past routes whose start it lacks', () => {
  const handle = () => ({ status: 200, body: null });
  const endpoint = { methods: ['GET'] as const, args: {}, permission: () => true, handle };
  const routes: RouteDefinition[] = [
    { namespace: 'a/v1', path: '/a/v1/things', endpoints: [{ ...endpoint, methods: ['GET'] }] },
    { namespace: 'b/v1', path: '/b/v1/things?/(?P<id>[\\d]+)', endpoints: [{ ...endpoint, methods: ['GET'] }] },
    { namespace: 'b/v1', path: '/b/v1/(?P<any>.+)', endpoints: [{ ...endpoint, methods: ['POST'] }] },
  ];
  const dispatcher = new Dispatcher(routes, { apiRoot: 'http://example.test/' });
  assert.is(dispatcher.match('/A/V1/Things', 'GET')?.route, routes[0]);
  assert.is(dispatcher.match('/b/v1/thing/7', 'GET')?.route, routes[1]);
  assert.equal(dispatcher.match('/B/V1/THINGS/7', 'GET')?.captures, { id: '7' });
  assert.is(dispatcher.match('/b/v1/other', 'POST')?.route, routes[2]);
  assert.is(dispatcher.match('/b/v1/things/7', 'POST')?.route, routes[2]);
  assert.is(dispatcher.match('/c/v1/things', 'GET'), null);
});

test.run();
