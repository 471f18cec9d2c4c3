/**
 * The outbound HTTP client against servers on loopback: it refuses loopback however the URL writes it, checks
 * every redirect and again at connect time (a name rebound between the check and the connection), bounds the
 * exchange in redirects, size and time, and lets the allow-list through. Names are resolved by a resolver the test
 * gives, so no name is looked up outside this machine (`localhost` alone goes to the system's resolver).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createOutboundHttp } from '../../src/adapters/http/outboundClient';
import type { OutboundClientOptions, ResolvedAddress } from '../../src/adapters/http/outboundClient';
import { parseAllowedHosts } from '../../src/adapters/http/destinations';
import { OutboundError } from '../../src/ports/httpFetcher';
import type { OutboundFailure } from '../../src/ports/httpFetcher';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

interface Loopback {
  port: number;
  /** `http://127.0.0.1:PORT` (or `http://[::1]:PORT`). */
  base: string;
  seen: Seen[];
  close(): Promise<void>;
}

type Handler = (request: http.IncomingMessage, response: http.ServerResponse, body: string) => void;

const servers: Loopback[] = [];

async function loopback(handler: Handler, host = '127.0.0.1'): Promise<Loopback> {
  const seen: Seen[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      seen.push({ method: request.method!, url: request.url!, headers: request.headers, body });
      handler(request, response, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  const made: Loopback = {
    port,
    base: host.includes(':') ? `http://[${host}]:${port}` : `http://${host}:${port}`,
    seen,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  servers.push(made);
  return made;
}

const plain =
  (text: string): Handler =>
  (_request, response) => {
    response.setHeader('content-type', 'text/plain');
    response.end(text);
  };

/** A resolver for test names only: each name answers its list of results in turn (the last one repeats). */
function testResolver(names: Record<string, string[][]>) {
  const asked: string[] = [];
  const resolve = async (hostname: string): Promise<ResolvedAddress[]> => {
    asked.push(hostname);
    const answers = names[hostname];
    if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    const count = asked.filter((name) => name === hostname).length;
    const answer = answers[Math.min(count, answers.length) - 1]!;
    return answer.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { resolve, asked };
}

/** The failure a request ended with, or 'answered' with the status. */
async function outcome(promise: Promise<{ status: number }>): Promise<OutboundFailure | `answered ${number}`> {
  try {
    return `answered ${(await promise).status}`;
  } catch (error) {
    if (error instanceof OutboundError) return error.failure;
    throw error;
  }
}

const client = (options: OutboundClientOptions = {}) =>
  createOutboundHttp({ resolve: testResolver({}).resolve, ...options });

const test = suite('outbound HTTP client');
test.after.each(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

test('every way of writing 127.0.0.1 is refused before any connection', async () => {
  const target = await loopback(plain('internal'));
  const names = testResolver({});
  const get = createOutboundHttp({ resolve: names.resolve });
  const forms = [
    '127.0.0.1',
    '2130706433',
    '0x7f000001',
    '0X7F000001',
    '0x7f.0.0.1',
    '0x7f.1',
    '0177.0.0.1',
    '0177.0000.0000.0001',
    '017700000001',
    '127.1',
    '127.0.1',
    '127.0.0.1.',
    '%31%32%37.0.0.1',
    '１２７.０.０.１',
    '127.255.255.254',
    '0',
    '0.0.0.0',
    '[::ffff:127.0.0.1]',
    '[::ffff:7f00:1]',
    '[0:0:0:0:0:ffff:127.0.0.1]',
    '[::127.0.0.1]',
    '[::7f00:1]',
    '[::ffff:0:127.0.0.1]',
    '[64:ff9b::127.0.0.1]',
    '[64:ff9b::7f00:1]',
    '[2002:7f00:1::]',
  ];
  for (const host of forms) {
    assert.is(await outcome(get.request(`http://${host}:${target.port}/`)), 'address', host);
  }
  assert.equal(target.seen, []);
  assert.equal(names.asked, [], 'literal addresses are judged as they are, never resolved');
});

test('every way of writing ::1 is refused before any connection', async () => {
  const target = await loopback(plain('internal'), '::1');
  const get = client();
  for (const host of ['[::1]', '[0:0:0:0:0:0:0:1]', '[0000:0000::0001]', '[::0:1]', '[0::1]', '[::]']) {
    assert.is(await outcome(get.request(`http://${host}:${target.port}/`)), 'address', host);
  }
  assert.equal(target.seen, []);
});

test('localhost and names that resolve to loopback, private or metadata addresses are refused', async () => {
  const target = await loopback(plain('internal'));
  // localhost through the system's resolver, as in production.
  assert.is(await outcome(createOutboundHttp().request(`http://localhost:${target.port}/`)), 'address');
  assert.is(await outcome(createOutboundHttp().request(`http://LOCALHOST:${target.port}/`)), 'address');
  const names = testResolver({
    'loop.test': [['127.0.0.1']],
    'both.test': [['93.184.216.34', '127.0.0.1']],
    'metadata.test': [['169.254.169.254']],
    'private.test': [['10.0.0.1']],
    'mapped.test': [['::ffff:127.0.0.1']],
  });
  const get = createOutboundHttp({ resolve: names.resolve });
  for (const name of ['loop.test', 'both.test', 'metadata.test', 'private.test', 'mapped.test']) {
    assert.is(await outcome(get.request(`http://${name}:${target.port}/`)), 'address', name);
  }
  assert.equal(target.seen, []);
  // Each was refused by the check before connecting: resolved once.
  assert.equal(names.asked, ['loop.test', 'both.test', 'metadata.test', 'private.test', 'mapped.test']);
});

test('a name that resolves to a public address at the check and to loopback at connect time is refused', async () => {
  const target = await loopback(plain('internal'));
  const names = testResolver({ 'rebind.test': [['93.184.216.34'], ['127.0.0.1']] });
  const get = createOutboundHttp({ resolve: names.resolve });
  assert.is(await outcome(get.request(`http://rebind.test:${target.port}/`)), 'address');
  assert.equal(names.asked, ['rebind.test', 'rebind.test'], "the second look-up was the connection's own");
  assert.equal(target.seen, []);
});

test('the allow-list lets an address and port through, and the connection uses the checked resolver', async () => {
  const target = await loopback(plain('allowed'));
  const other = await loopback(plain('other'));
  const names = testResolver({ 'app.test': [['127.0.0.1']] });
  const get = createOutboundHttp({
    resolve: names.resolve,
    allowedHosts: parseAllowedHosts(`127.0.0.1:${target.port}`),
  });
  const answer = await get.request(`${target.base}/a?b=c`);
  assert.is(answer.status, 200);
  assert.is(answer.body, 'allowed');
  assert.is(answer.contentType, 'text/plain');
  assert.is(answer.url, `${target.base}/a?b=c`);
  assert.is(Buffer.from(answer.bytes).toString(), 'allowed');
  assert.is((await get.request(`http://app.test:${target.port}/`)).body, 'allowed');
  assert.equal(names.asked, ['app.test', 'app.test']);
  // Another port of the same address is not allowed.
  assert.is(await outcome(get.request(`${other.base}/`)), 'address');
  assert.equal(other.seen, []);
  // Nor is the port on another loopback address.
  assert.is(await outcome(get.request(`http://127.0.0.2:${target.port}/`)), 'address');
});

test('a host name in the allow-list is allowed with its port, whatever it resolves to', async () => {
  const target = await loopback(plain('by name'));
  const get = createOutboundHttp({ allowedHosts: parseAllowedHosts(`localhost:${target.port}`) });
  assert.is((await get.request(`http://localhost:${target.port}/`)).body, 'by name');
  // The name allows nothing else: the same address written as an address, or another port.
  assert.is(await outcome(get.request(`${target.base}/`)), 'address');
  assert.is(await outcome(get.request(`http://localhost:${target.port + 1}/`)), 'address');
});

test('a redirect from an allowed server to one not allowed is refused, without asking the second', async () => {
  const inside = await loopback(plain('inside'));
  const allowed = await loopback((request, response) => {
    const to = request.url === '/away' ? `${inside.base}/secret` : request.url === '/relative' ? '/landed' : null;
    if (to) {
      response.writeHead(302, { location: to });
      response.end();
    } else plain('landed')(request, response, '');
  });
  const get = client({ allowedHosts: parseAllowedHosts(`127.0.0.1:${allowed.port}`) });
  assert.is(await outcome(get.request(`${allowed.base}/away`)), 'address');
  assert.equal(inside.seen, []);
  const followed = await get.request(`${allowed.base}/relative`);
  assert.is(followed.body, 'landed');
  assert.is(followed.url, `${allowed.base}/landed`);
});

test('redirects to other schemes and URLs with credentials are refused', async () => {
  const server = await loopback((request, response) => {
    response.writeHead(301, { location: decodeURIComponent(request.url!.slice(1)) });
    response.end();
  });
  const get = client({ allowedHosts: parseAllowedHosts('127.0.0.1') });
  for (const to of [
    'file:///etc/passwd',
    'ftp://127.0.0.1/',
    'gopher://127.0.0.1:6379/_INFO',
    `http://user:secret@127.0.0.1:${server.port}/`,
  ]) {
    assert.is(await outcome(get.request(`${server.base}/${encodeURIComponent(to)}`)), 'url', to);
  }
  for (const url of [
    'file:///etc/passwd',
    'ftp://127.0.0.1/',
    'javascript:alert(1)',
    'data:text/plain,x',
    `http://user:secret@127.0.0.1:${server.port}/`,
    `http://:secret@127.0.0.1:${server.port}/`,
    'not a url',
  ]) {
    assert.is(await outcome(get.request(url)), 'url', url);
  }
  assert.is(server.seen.length, 4, 'only the first requests of the redirects reached the server');
});

test('redirects are limited', async () => {
  const server = await loopback((request, response) => {
    const n = Number(request.url!.slice(1));
    if (n > 0) {
      response.writeHead(307, { location: `/${n - 1}` });
      response.end();
    } else plain('end of the chain')(request, response, '');
  });
  const get = client({ allowedHosts: parseAllowedHosts(`127.0.0.1:${server.port}`), maxRedirects: 3 });
  assert.is((await get.request(`${server.base}/3`)).body, 'end of the chain');
  server.seen.length = 0;
  assert.is(await outcome(get.request(`${server.base}/100`)), 'redirects');
  assert.is(server.seen.length, 4);
});

test('answers over the size limit are refused, declared or not', async () => {
  const server = await loopback((request, response) => {
    if (request.url === '/declared') {
      response.setHeader('content-length', '5000');
      response.end('x'.repeat(5000));
    } else if (request.url === '/chunked') {
      response.write('x'.repeat(800));
      response.write('x'.repeat(800));
      response.end();
    } else response.end('x'.repeat(1000));
  });
  const get = client({ allowedHosts: parseAllowedHosts(`127.0.0.1:${server.port}`), maxBytes: 1000 });
  assert.is(await outcome(get.request(`${server.base}/declared`)), 'size');
  assert.is(await outcome(get.request(`${server.base}/chunked`)), 'size');
  assert.is((await get.request(`${server.base}/exact`)).body.length, 1000);
  // A caller may ask for a higher limit for one request.
  assert.is((await get.request(`${server.base}/chunked`, { maxBytes: 2000 })).body.length, 1600);
});

test('a server that never answers, or answers too slowly, ends in a time-out', async () => {
  const pending: http.ServerResponse[] = [];
  const server = await loopback((request, response) => {
    if (request.url === '/drip') {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('a');
    }
    // Neither finishes: the test's after-hook closes the connections.
    pending.push(response);
  });
  const get = client({ allowedHosts: parseAllowedHosts(`127.0.0.1:${server.port}`), timeoutMs: 200 });
  assert.is(await outcome(get.request(`${server.base}/silent`)), 'timeout');
  assert.is(await outcome(get.request(`${server.base}/drip`)), 'timeout');
  assert.is(pending.length, 2);
});

test('a closed port is a network failure', async () => {
  const closed = await loopback(plain(''));
  await closed.close();
  servers.splice(servers.indexOf(closed), 1);
  const get = client({ allowedHosts: parseAllowedHosts('127.0.0.1') });
  assert.is(await outcome(get.request(`${closed.base}/`)), 'network');
});

test('POST sends its body; a 303 asks the next place with a GET; a 307 repeats the POST', async () => {
  const server = await loopback((request, response, body) => {
    if (request.url === '/see-other' || request.url === '/temporary') {
      response.writeHead(request.url === '/see-other' ? 303 : 307, { location: '/echo' });
      response.end();
      return;
    }
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ method: request.method, body, type: request.headers['content-type'] ?? null }));
  });
  const get = client({ allowedHosts: parseAllowedHosts(`127.0.0.1:${server.port}`) });
  const init = { method: 'POST' as const, headers: { 'Content-Type': 'application/json' }, body: '{"a":1}' };
  assert.equal(JSON.parse((await get.request(`${server.base}/echo`, init)).body), {
    method: 'POST',
    body: '{"a":1}',
    type: 'application/json',
  });
  assert.equal(JSON.parse((await get.request(`${server.base}/see-other`, init)).body), {
    method: 'GET',
    body: '',
    type: null,
  });
  assert.equal(JSON.parse((await get.request(`${server.base}/temporary`, init)).body), {
    method: 'POST',
    body: '{"a":1}',
    type: 'application/json',
  });
});

test('credentials go to the origin they were meant for only, and no cookie is ever sent', async () => {
  const second = await loopback(plain('second'));
  const first = await loopback((request, response) => {
    if (request.url === '/elsewhere' || request.url === '/here') {
      response.writeHead(302, { location: request.url === '/here' ? '/landed' : `${second.base}/landed` });
      response.end();
    } else plain('first')(request, response, '');
  });
  const get = client({ allowedHosts: parseAllowedHosts(`127.0.0.1:${first.port}, 127.0.0.1:${second.port}`) });
  const headers = { Authorization: 'Bearer token', 'X-Kept': 'yes', Host: 'elsewhere.example', 'Content-Length': '99' };
  await get.request(`${first.base}/here`, { headers });
  await get.request(`${first.base}/elsewhere`, { headers });
  const landedFirst = first.seen.find((seen) => seen.url === '/landed')!;
  assert.is(landedFirst.headers.authorization, 'Bearer token');
  const landedSecond = second.seen[0]!;
  assert.is(landedSecond.headers.authorization, undefined);
  assert.is(landedSecond.headers['x-kept'], 'yes');
  for (const seen of [...first.seen, ...second.seen]) {
    assert.is(seen.headers.cookie, undefined);
    // The host and the framing are the client's own, whatever the caller sent.
    assert.ok(
      seen.headers.host === `127.0.0.1:${first.port}` || seen.headers.host === `127.0.0.1:${second.port}`,
      seen.headers.host,
    );
    assert.is(seen.headers['content-length'], undefined);
  }
});

test.run();
