import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Dispatcher } from '../../src/rest/dispatch';
import type { RestRequest, RouteDefinition } from '../../src/rest/route';

/** An item route whose rules count how often they are judged; the delete rule lets everyone through. */
function countingRoute() {
  const judged = { GET: 0, DELETE: 0 };
  const route: RouteDefinition = {
    namespace: 'test/v1',
    path: '/test/v1/things/(?P<id>[\\d]+)',
    endpoints: [
      { methods: ['GET'], args: {}, permission: () => ((judged.GET += 1), true), handle: () => ({ status: 200, body: { read: true } }) },
      { methods: ['DELETE'], args: {}, permission: () => ((judged.DELETE += 1), true), handle: () => ({ status: 200, body: { deleted: true } }) },
    ],
  };
  return { judged, dispatcher: new Dispatcher([route], { apiRoot: 'http://example.test/' }) };
}

const request = (method: string): RestRequest => ({ method, path: '/test/v1/things/5', query: {}, rawQuery: '', json: null, form: null, headers: {}, actor: null, requestId: 'r' });

test('Allow: a read judges its own endpoint once (before the handler), the route\'s other endpoints once each', async () => {
  for (const method of ['GET', 'HEAD']) {
    const { judged, dispatcher } = countingRoute();
    const result = await dispatcher.dispatch(request(method));
    assert.is(result.status, 200);
    assert.is(result.headers?.Allow, 'GET, DELETE');
    assert.equal(judged, { GET: 1, DELETE: 1 }, method);
  }
});

test('Allow: a write\'s own endpoint is judged again once it was answered', async () => {
  const { judged, dispatcher } = countingRoute();
  const result = await dispatcher.dispatch(request('DELETE'));
  assert.is(result.headers?.Allow, 'GET, DELETE');
  assert.equal(judged, { GET: 1, DELETE: 2 });
});

test.run();
