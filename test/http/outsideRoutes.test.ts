/**
 * The routes outside the REST API (src/http/outsideRoutes.ts): the operational endpoints and the pages match their paths
 * exactly (case, trailing slash, method), a site path with characters a pattern would read as syntax is matched
 * literally, and whatever they do not answer is the API's.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';

const routes = suite('routes outside the API');

const isApiNoRoute = async (response: Response, what: string): Promise<void> => {
  assert.is(response.status, 404, what);
  assert.match(response.headers.get('content-type') ?? '', /application\/json/, what);
  assert.is(((await response.json()) as { code?: string }).code, 'rest_no_route', what);
};

routes("the operational endpoints answer GET and HEAD of their exact paths; anything else is the API's", async () => {
  const site = await startTestSite();
  try {
    const health = await fetch(`${site.url}/healthz?probe=1`);
    assert.is(health.status, 200);
    assert.equal(await health.json(), { status: 'ok' });
    const head = await fetch(`${site.url}/healthz`, { method: 'HEAD' });
    assert.is(head.status, 200);
    assert.is(await head.text(), '');
    assert.match((await fetch(`${site.url}/metrics`)).headers.get('content-type') ?? '', /text\/plain/);
    await isApiNoRoute(await fetch(`${site.url}/healthz/`), 'a trailing slash');
    await isApiNoRoute(await fetch(`${site.url}/HEALTHZ`), 'another case');
    await isApiNoRoute(await fetch(`${site.url}/health%7A`), 'an encoded letter');
    await isApiNoRoute(await fetch(`${site.url}/readyz`, { method: 'POST' }), 'a POST');
  } finally {
    await site.close();
  }
});

routes('a site path with pattern characters is matched literally by every page', async () => {
  const site = await startTestSite({ siteUrl: 'http://example.test/a.b(c)+' });
  try {
    const authorize = await fetch(`${site.url}/a.b(c)+/wp-admin/authorize-application.php`);
    assert.match(authorize.headers.get('content-type') ?? '', /text\/html/);
    assert.is(authorize.headers.get('x-frame-options'), 'DENY');
    await isApiNoRoute(await fetch(`${site.url}/aXb(c)+/wp-admin/authorize-application.php`), '`.` is no wildcard');
    await isApiNoRoute(await fetch(`${site.url}/a.bcc/wp-admin/authorize-application.php`), '`(c)+` is no group');
    await isApiNoRoute(await fetch(`${site.url}/a.b(c)+/wp-admin/authorize-application.php/`), 'a trailing slash');
    const audit = await fetch(`${site.url}/a.b(c)+/audit/`);
    assert.is(audit.status, 200);
    assert.match(await audit.text(), /src="audit.mjs"/);
    await isApiNoRoute(await fetch(`${site.url}/aXb(c)+/audit/`), 'the audit page under another path');
    const upload = await fetch(`${site.url}/aXb(c)+/wp-content/uploads/2026/11/none.png`);
    assert.match(upload.headers.get('content-type') ?? '', /application\/json/, "not the uploads' answer");
  } finally {
    await site.close();
  }
});

routes(
  "a page that is not the request's passes it to the API: the API's own routes under /audit/, methods the page has not",
  async () => {
    const site = await startTestSite();
    try {
      const api = await fetch(`${site.url}/audit/v1/events`);
      assert.is(api.status, 401);
      assert.match(api.headers.get('content-type') ?? '', /application\/json/);
      const post = await fetch(`${site.url}/audit/`, { method: 'POST' });
      assert.is(post.status, 405, "the page's own refusal");
      assert.is(post.headers.get('allow'), 'GET, HEAD');
      const put = await fetch(`${site.url}/wp-admin/authorize-application.php`, { method: 'PUT' });
      assert.is(put.status, 405);
      assert.is(put.headers.get('allow'), 'GET, HEAD, POST');
    } finally {
      await site.close();
    }
  },
);

routes.run();
