/**
 * /oembed/1.0/proxy with the real outbound client: a contributor cannot make the site fetch a page on its own
 * network, however the URL writes the address, nor through a discovered link; a refused address, a closed port
 * and a time-out all get WordPress's answer for a URL it cannot embed; the allow-list lets a single-box setup
 * embed its neighbours.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';
import { createOutboundHttp } from '../../src/adapters/http/outboundClient';
import { parseAllowedHosts } from '../../src/adapters/http/destinations';

/** What WordPress 6.1 answers (checked against the reference) for a URL it cannot embed. */
const cannotEmbed = { status: 404, body: { code: 'oembed_invalid_url', message: 'Not Found', data: { status: 404 } } };

const internalData = { version: '1.0', type: 'rich', title: 'Internal', html: '<p>secret</p>' };

interface Server {
  port: number;
  asked: string[];
  close(): Promise<void>;
}

/** A server on loopback: `/page` announces `oembedAt` (its own /oembed.json by default); `/silent` never answers. */
async function internalServer(oembedAt?: (port: number) => string): Promise<Server> {
  const asked: string[] = [];
  const server = http.createServer((request, response) => {
    asked.push(request.url!);
    const port = (server.address() as AddressInfo).port;
    if (request.url === '/silent') return;
    if (request.url === '/moved') {
      response.writeHead(301, { location: '/nested/page' });
      response.end();
    } else if (request.url === '/nested/page') {
      response.setHeader('content-type', 'text/html');
      response.end('<link rel="alternate" type="application/json+oembed" href="oembed.json">');
    } else if (request.url === '/nested/oembed.json?maxwidth=600') {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ ...internalData, title: 'Nested' }));
    } else if (request.url === '/page') {
      response.setHeader('content-type', 'text/html');
      const href = oembedAt?.(port) ?? `http://127.0.0.1:${port}/oembed.json`;
      response.end(`<html><head><link rel="alternate" type="application/json+oembed" href="${href}"></head></html>`);
    } else {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify(internalData));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    asked,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const test = suite('oembed proxy and the outbound client');
let internal: Server;
let site: TestSite;
let contributor: TestUser;

test.before(async () => {
  internal = await internalServer();
  site = await startTestSite({ http: createOutboundHttp() });
  contributor = await site.createUser('contributor', 'contributor');
});
test.after(async () => {
  await site.close();
  await internal.close();
});

const proxy = (t: TestSite, url: string, as: TestUser) =>
  t.request('GET', `/oembed/1.0/proxy?url=${encodeURIComponent(url)}`, { as });

test("a page on the server's own network is not fetched, whatever form its address takes", async () => {
  const p = internal.port;
  const forms = [
    `http://127.0.0.1:${p}/page`,
    `http://localhost:${p}/page`,
    `http://2130706433:${p}/page`,
    `http://0x7f000001:${p}/page`,
    `http://0177.0.0.1:${p}/page`,
    `http://127.1:${p}/page`,
    `http://[::ffff:127.0.0.1]:${p}/page`,
    `http://[::1]:${p}/page`,
    `http://0.0.0.0:${p}/page`,
  ];
  for (const url of forms) {
    const { status, body } = await proxy(site, url, contributor);
    assert.equal({ status, body }, cannotEmbed, url);
  }
  assert.equal(internal.asked, []);
});

test('with the address allowed, the page is embedded; a refused address, a closed port and a time-out all answer alike', async () => {
  const elsewhere = await internalServer();
  const closed = await internalServer();
  await closed.close();
  const allowed = await startTestSite({
    http: createOutboundHttp({
      allowedHosts: parseAllowedHosts(`127.0.0.1:${internal.port}, 127.0.0.1:${closed.port}`),
      timeoutMs: 300,
    }),
  });
  const writer = await allowed.createUser('contributor', 'contributor');
  try {
    const embedded = await proxy(allowed, `http://127.0.0.1:${internal.port}/page`, writer);
    assert.is(embedded.status, 200);
    assert.equal(embedded.body, internalData);
    assert.equal(internal.asked.splice(0), ['/page', '/oembed.json?maxwidth=600']);
    // A relative link is read against the page's own URL, after its redirect.
    const moved = await proxy(allowed, `http://127.0.0.1:${internal.port}/moved`, writer);
    assert.equal(moved.body, { ...internalData, title: 'Nested' });
    assert.equal(internal.asked.splice(0), ['/moved', '/nested/page', '/nested/oembed.json?maxwidth=600']);
    for (const url of [
      `http://127.0.0.1:${elsewhere.port}/page`,
      `http://127.0.0.1:${closed.port}/page`,
      `http://127.0.0.1:${internal.port}/silent`,
    ]) {
      const { status, body } = await proxy(allowed, url, writer);
      assert.equal({ status, body }, cannotEmbed, url);
    }
    assert.equal(elsewhere.asked, []);
    assert.equal(internal.asked.splice(0), ['/silent']);
  } finally {
    await allowed.close();
    await elsewhere.close();
  }
});

test('an allowed page whose oEmbed link points at an address not allowed is not followed there', async () => {
  const hidden = await internalServer();
  const announcing = await internalServer(() => `http://127.0.0.1:${hidden.port}/oembed.json`);
  const allowed = await startTestSite({
    http: createOutboundHttp({ allowedHosts: parseAllowedHosts(`127.0.0.1:${announcing.port}`) }),
  });
  const writer = await allowed.createUser('contributor', 'contributor');
  try {
    const { status, body } = await proxy(allowed, `http://127.0.0.1:${announcing.port}/page`, writer);
    assert.equal({ status, body }, cannotEmbed);
    assert.equal(announcing.asked, ['/page']);
    assert.equal(hidden.asked, []);
  } finally {
    await allowed.close();
    await announcing.close();
    await hidden.close();
  }
});

test.run();
