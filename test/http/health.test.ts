/** /healthz, /readyz and /metrics through the real app. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestSite } from '../support/testSite';

const test = suite('health and metrics');
let t: TestSite;

test.before.each(async () => {
  t = await startTestSite();
});
test.after.each(async () => {
  await t.close();
});

test('/healthz answers while the process lives', async () => {
  const response = await t.request('GET', '/healthz');
  assert.is(response.status, 200);
  assert.equal(response.body, { status: 'ok' });
});

test('/readyz checks the event store, the read model and the projector lag', async () => {
  const response = await t.request('GET', '/readyz');
  assert.is(response.status, 200);
  assert.is(response.body.status, 'ready');
  assert.equal(Object.keys(response.body.checks).sort(), ['eventStore', 'projector', 'readModel']);
  assert.is(response.body.checks.projector.lagEvents, 0);
});

test('/readyz fails when the read model trails the log beyond the bound', async () => {
  await t.site.projector.stop();
  await t.site.store.appendToStream('unprojected-1', [{ type: 'Nothing', data: {}, metadata: { userId: null, requestId: 'r', at: '2000-01-01T00:00:00.000Z' } }], { expectedRevision: 'no_stream' });
  const response = await t.request('GET', '/readyz');
  assert.is(response.status, 503);
  assert.is(response.body.checks.projector.ok, false);
  assert.is(response.body.checks.projector.lagEvents, 1);
  assert.ok(response.body.checks.projector.lagSeconds > 30);
});

test('/metrics has request durations by route, append latency and projector lag', async () => {
  const admin = await t.createUser('admin', 'administrator');
  const created = await t.request('POST', '/core/v2/posts', { as: admin, body: { title: 'Measured', status: 'publish' } });
  assert.is(created.status, 201);
  await t.request('GET', `/core/v2/posts/${created.body.id}`);
  const response = await t.request('GET', '/metrics');
  assert.is(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  assert.match(response.text, /palimpsest_http_request_duration_seconds_count\{method="GET",route="\/core\/v2\/posts\/\{id\}",status="200"\} 1\n/);
  assert.match(response.text, /palimpsest_http_request_duration_seconds_count\{method="POST",route="\/core\/v2\/posts",status="201"\} 1\n/);
  assert.match(response.text, /palimpsest_event_store_append_duration_seconds_count [1-9]\d*\n/);
  assert.match(response.text, /palimpsest_projector_lag_events 0\n/);
  assert.match(response.text, /palimpsest_projector_lag_seconds 0\n/);
});

test.run();
