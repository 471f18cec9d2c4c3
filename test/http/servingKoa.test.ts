/**
 * ServingKoa (src/http/servingKoa.ts) overrides koa's undocumented `handleRequest`. Every middleware here is answered
 * through a stock Koa and through ServingKoa, over HTTP, and the two answers must be the same bytes (status line,
 * header lines in order, body): a koa upgrade that changes what `handleRequest` does fails here. An answer the
 * middleware wrote itself (`ctx.respond = false`) gets no `on-finished` listener; one koa writes gets it.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import Koa from 'koa';
import { ServingKoa } from '../../src/http/servingKoa';

const test = suite('koa without on-finished for answers written by the middleware');

type Middleware = (ctx: Koa.Context) => unknown;

/** The answer as received: the status line, the raw header lines but Date, the body bytes. */
async function answer(
  app: Koa,
  method: string,
  middleware: Middleware,
): Promise<{ status: string; headers: string[]; body: string; res: unknown }> {
  let seen: unknown;
  app.silent = true;
  app.use(async (ctx) => {
    seen = ctx.res;
    await middleware(ctx);
  });
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    return await new Promise((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, method, path: '/thing?x=1', agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const headers: string[] = [];
          for (let i = 0; i < res.rawHeaders.length; i += 2) {
            if (res.rawHeaders[i]!.toLowerCase() !== 'date')
              headers.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
          }
          resolve({
            status: `${res.statusCode} ${res.statusMessage}`,
            headers,
            body: Buffer.concat(chunks).toString('latin1'),
            res: seen,
          });
        });
      });
      req.on('error', reject);
      req.end();
    });
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

const cases: Record<string, Middleware> = {
  'nothing set (koa default 404)': () => undefined,
  'a string body': (ctx) => {
    ctx.body = 'hello';
  },
  'a status and a JSON body': (ctx) => {
    ctx.status = 201;
    ctx.body = { made: true };
  },
  'a status set after waiting, with a header and a type': async (ctx) => {
    await new Promise((resolve) => setImmediate(resolve));
    ctx.status = 503;
    ctx.type = 'text/plain; charset=utf-8';
    ctx.set('Retry-After', '5');
    ctx.body = 'not ready';
  },
  'a status without a body': (ctx) => {
    ctx.status = 418;
  },
  'an empty status': (ctx) => {
    ctx.status = 204;
  },
  'an explicit null body': (ctx) => {
    ctx.body = null;
  },
  'a buffer body': (ctx) => {
    ctx.type = 'image/png';
    ctx.body = Buffer.from([1, 2, 3, 4]);
  },
  'a stream body': (ctx) => {
    ctx.type = 'text/plain';
    ctx.body = Readable.from(['one ', 'two']);
  },
  'a redirect': (ctx) => {
    ctx.redirect('/elsewhere');
  },
  'a thrown error': (ctx) => {
    ctx.set('X-Partial', 'yes');
    ctx.status = 200;
    throw new Error('boom');
  },
  'a thrown http error': (ctx) => {
    ctx.throw(409, 'taken');
  },
  'an error thrown after waiting': async () => {
    await new Promise((resolve) => setImmediate(resolve));
    throw Object.assign(new Error('gone'), { status: 410, expose: true });
  },
  'an answer the middleware wrote itself': (ctx) => {
    ctx.respond = false;
    ctx.res.writeHead(202, ['Content-Type', 'application/json', 'Content-Length', '2']);
    ctx.res.end(ctx.method === 'HEAD' ? undefined : '{}');
  },
};

for (const method of ['GET', 'HEAD']) {
  for (const [name, middleware] of Object.entries(cases)) {
    test(`${method}, ${name}: the same answer as koa's`, async () => {
      const stock = await answer(new Koa({ proxy: true }), method, middleware);
      const serving = await answer(new ServingKoa({ proxy: true }), method, middleware);
      assert.equal(
        { status: serving.status, headers: serving.headers, body: serving.body },
        { status: stock.status, headers: stock.headers, body: stock.body },
      );
    });
  }
}

test('on-finished is attached only to answers koa writes', async () => {
  const onFinished = (res: unknown) => (res as { __onFinished?: unknown }).__onFinished;
  const written = await answer(new ServingKoa(), 'GET', cases['an answer the middleware wrote itself']!);
  assert.is(written.status, '202 Accepted');
  assert.is(onFinished(written.res), undefined, 'no listener for an answer the middleware wrote');
  const koaWritten = await answer(new ServingKoa(), 'GET', cases['a string body']!);
  assert.is.not(onFinished(koaWritten.res), undefined, 'a listener for an answer koa writes');
  // The property this relies on: stock koa attaches it to every answer.
  assert.is.not(
    onFinished((await answer(new Koa(), 'GET', cases['an answer the middleware wrote itself']!)).res),
    undefined,
  );
});

test.run();
