import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createSiteMetrics } from '../../src/metrics/siteMetrics';

const countOf = (text: string, route: string) =>
  Number(new RegExp(`palimpsest_http_request_duration_seconds_count\\{method="GET",route="${route.replace(/[{}]/g, '\\$&')}",status="200"\\} (\\d+)`).exec(text)?.[1] ?? 0);

test('request routes: every item path is counted under its route, however many items were asked', async () => {
  const metrics = createSiteMetrics();
  for (let id = 1; id <= 1200; id++) metrics.observeRequest('GET', `/core/v2/posts/${id}`, 200, 0.001);
  metrics.observeRequest('GET', '/core/v2/posts', 200, 0.001);
  metrics.observeRequest('GET', '/core/v2/posts/7/revisions/12', 200, 0.001);
  const text = await metrics.registry.render();
  assert.is(countOf(text, '/core/v2/posts/{id}'), 1200);
  assert.is(countOf(text, '/core/v2/posts'), 1);
  assert.is(countOf(text, '/core/v2/posts/{id}/revisions/{id}'), 1);
  assert.is(countOf(text, 'other'), 0);
});

test('request routes: distinct labels are bounded; the ones beyond share "other", the known ones stay', async () => {
  const metrics = createSiteMetrics();
  metrics.observeRequest('GET', '/core/v2/posts/1', 200, 0.001);
  for (let k = 0; k < 700; k++) metrics.observeRequest('GET', `/scan-${k}`, 200, 0.001);
  metrics.observeRequest('GET', '/core/v2/posts/2', 200, 0.001);
  const text = await metrics.registry.render();
  assert.is(countOf(text, '/core/v2/posts/{id}'), 2);
  assert.is(countOf(text, '/scan-0'), 1);
  assert.is(countOf(text, '/scan-498'), 1);
  assert.is(countOf(text, '/scan-499'), 0);
  assert.is(countOf(text, 'other'), 201);
});

test.run();
