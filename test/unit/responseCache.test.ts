/**
 * The shared response cache's own bookkeeping (src/http/responseCache.ts): which answers it keeps once full (a
 * URL asked again within the admission window), what it keeps until then, and the window itself. What it serves,
 * byte for byte, is tested through the app in test/http/responseCache.test.ts.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ResponseCache } from '../../src/http/responseCache';
import { AdmissionWindow } from '../../src/core/admissionWindow';
import { ReadModelVersion } from '../../src/projection/readModelVersion';

const test = suite('response cache: admission');

const get = (url: string) => ({ method: 'GET', url, headers: {} }) as unknown as IncomingMessage;

/** A response that records what was written to it. */
function response(): ServerResponse & { written: Buffer | undefined } {
  const res = {
    written: undefined as Buffer | undefined,
    writeHead() {
      return res;
    },
    end(body?: Buffer) {
      res.written = body;
    },
  };
  return res as unknown as ServerResponse & { written: Buffer | undefined };
}

/** Asks `url`: answered from the cache (true), or computed and offered to it (false). */
function ask(cache: ResponseCache, url: string): boolean {
  const req = get(url);
  if (cache.serve(req, response())) return true;
  const version = cache.admit(req);
  if (version !== null)
    cache.keep(req, version, {
      status: 200,
      headers: ['Content-Type', 'application/json'],
      body: Buffer.from(`"${url}"`),
    });
  return false;
}

test('until it is full, every answer is kept at once', () => {
  const cache = new ResponseCache(new ReadModelVersion(), { entries: 3, bytes: 1 << 20 });
  for (const url of ['/a', '/b', '/c']) assert.not.ok(ask(cache, url));
  for (const url of ['/a', '/b', '/c']) assert.ok(ask(cache, url), url);
  assert.is(cache.size.entries, 3);
});

test('once full, a URL is kept only when asked again within the window, and then pushes out the least recently used', () => {
  const cache = new ResponseCache(new ReadModelVersion(), { entries: 2, bytes: 1 << 20, admissionWindow: 4 });
  ask(cache, '/a');
  ask(cache, '/b');
  assert.not.ok(ask(cache, '/c'), 'first ask: computed');
  // /c was not kept: /a and /b still are.
  assert.ok(ask(cache, '/a'));
  assert.ok(ask(cache, '/b'));
  assert.not.ok(ask(cache, '/c'), 'second ask: computed, and now kept');
  assert.ok(ask(cache, '/c'), 'third ask: from the cache');
  assert.not.ok(ask(cache, '/a'), '/a was the least recently used: pushed out');
  assert.ok(ask(cache, '/b'));
  assert.is(cache.size.entries, 2);
});

test('once full, a URL asked again beyond the window is not kept', () => {
  const cache = new ResponseCache(new ReadModelVersion(), { entries: 1, bytes: 1 << 20, admissionWindow: 2 });
  ask(cache, '/kept');
  ask(cache, '/x');
  ask(cache, '/y');
  ask(cache, '/z'); // the window now holds /y and /z
  assert.not.ok(ask(cache, '/x'));
  assert.ok(ask(cache, '/kept'), 'nothing was pushed out');
});

test('the byte bound counts as full too', () => {
  const cache = new ResponseCache(new ReadModelVersion(), { entries: 100, bytes: 1000, admissionWindow: 10 });
  // Each answer here costs a little over 200 bytes: four fit.
  for (const url of ['/1', '/2', '/3', '/4']) ask(cache, url);
  assert.is(cache.size.entries, 4);
  ask(cache, '/5');
  assert.is(cache.size.entries, 4, 'the fifth waits for its second ask');
  ask(cache, '/5');
  assert.is(cache.size.entries, 4);
  assert.ok(ask(cache, '/5'));
  assert.not.ok(ask(cache, '/1'));
});

test('an answer kept at an older version is replaced at once, full or not', () => {
  const version = new ReadModelVersion();
  const cache = new ResponseCache(version, { entries: 2, bytes: 1 << 20, admissionWindow: 4 });
  ask(cache, '/a');
  ask(cache, '/b');
  version.changed();
  assert.not.ok(ask(cache, '/a'), 'stale: computed afresh');
  assert.ok(ask(cache, '/a'), 'and kept again at once');
  assert.not.ok(ask(cache, '/b'));
  assert.ok(ask(cache, '/b'));
});

test('after a change, an answer pushing out one of an older version is kept at once', () => {
  const version = new ReadModelVersion();
  const cache = new ResponseCache(version, { entries: 2, bytes: 1 << 20, admissionWindow: 4 });
  ask(cache, '/a');
  ask(cache, '/b');
  version.changed();
  assert.not.ok(ask(cache, '/c'));
  assert.ok(ask(cache, '/c'), 'kept at its first request: /a was of the older version');
  assert.not.ok(ask(cache, '/d'));
  assert.ok(ask(cache, '/d'), '/b likewise');
  // Now the first out (/c) is current: /e waits for its second request, then pushes /c out.
  assert.not.ok(ask(cache, '/e'));
  assert.not.ok(ask(cache, '/e'));
  assert.ok(ask(cache, '/e'));
  assert.ok(ask(cache, '/d'));
  assert.not.ok(ask(cache, '/c'));
});

test('a kept answer holds its body in memory of its own, not a slice of a larger buffer it would keep alive', () => {
  const cache = new ResponseCache(new ReadModelVersion(), { entries: 3, bytes: 1 << 20 });
  const shared = Buffer.alloc(8192, 0x20);
  const pooled = Buffer.from('{"id":7}');
  const own = Buffer.allocUnsafeSlow(9);
  own.write('{"id":8} ');
  for (const [url, body] of [
    ['/slice', shared.subarray(100, 110).fill(0x31)],
    ['/pooled', pooled],
    ['/own', own],
  ] as const) {
    const req = get(url);
    cache.keep(req, cache.admit(req)!, { status: 200, headers: [], body });
  }
  for (const [url, expected] of [
    ['/slice', '1111111111'],
    ['/pooled', '{"id":7}'],
    ['/own', '{"id":8} '],
  ] as const) {
    const res = response();
    assert.ok(cache.serve(get(url), res), url);
    assert.is(res.written!.toString(), expected, url);
    assert.is(res.written!.buffer.byteLength, res.written!.length, `${url}: the answer's memory is its own`);
  }
  // Memory of its own already is kept as it is (the presentation cache's JSON is shared, not copied).
  const res = response();
  cache.serve(get('/own'), res);
  assert.is(res.written, own);
});

test('an admission window forgets the oldest URL and admits each URL once per sighting', () => {
  const window = new AdmissionWindow(3);
  for (const key of ['/1', '/2', '/3']) assert.not.ok(window.admits(key));
  assert.ok(window.admits('/2'));
  assert.not.ok(window.admits('/2'), "admitted once, then forgotten (and now remembered again, in /1's slot)");
  assert.not.ok(window.admits('/4'));
  assert.not.ok(window.admits('/1'), '/1 had been forgotten');
  window.remember('/9');
  window.remember('/9');
  assert.ok(window.admits('/9'));
  assert.not.ok(window.admits('/9'));
  assert.not.ok(new AdmissionWindow(0).admits('/x') || new AdmissionWindow(0).admits('/x'));
});

test.run();
