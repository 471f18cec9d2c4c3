/**
 * ServingKoa: koa, without its `on-finished` listener for answers the middleware wrote itself.
 *
 * Koa attaches `on-finished` to every response before the middleware runs (ee-first listeners on the response and its
 * socket, added and removed per request), to report an error of the response or its socket. For an answer the
 * middleware wrote itself with one `end` and marked `ctx.respond = false` (every API answer and every response-cache
 * hit, src/app.ts) such an error could only be logged, and the listener was a measurable share of a read's CPU
 * (docs/performance.md, "What the figures rest on": ~2 KB and ~3% of a read's CPU per answer). Whatever the middleware leaves to koa
 * (the operational endpoints, uploads, pages, koa's own error answers) koa answers exactly as before, its listener
 * attached before it writes.
 *
 * This overrides `handleRequest`, which koa's `callback()` calls per request but which is not in koa's type
 * declarations or documentation. test/http/servingKoa.test.ts answers a range of middlewares through both this and
 * a stock Koa and requires the same bytes, so a koa upgrade that changes `handleRequest` fails there; package.json
 * takes koa's patch releases only (`~3.3.0`), so such an upgrade is a deliberate change of that line.
 */
import Koa from 'koa';

type Middleware = (ctx: Koa.Context) => Promise<void>;
/** Koa's own request handling: the default status, `on-finished`, its response step. */
const koaHandleRequest = (
  Koa.prototype as unknown as { handleRequest(this: Koa, ctx: Koa.Context, middleware: Middleware): Promise<void> }
).handleRequest;

export class ServingKoa extends Koa {
  handleRequest(ctx: Koa.Context, middleware: Middleware): Promise<void> {
    const res = ctx.res;
    // Koa's default, as its own handleRequest sets it before the middleware.
    res.statusCode = 404;
    return middleware(ctx).then(
      () => {
        if (ctx.respond === false) return undefined;
        // Koa's handling with the middleware's work done: its handleRequest sets the default 404 again, so the
        // status the middleware set is put back before koa's response step reads it.
        const status = res.statusCode;
        return koaHandleRequest.call(this, ctx, () => {
          res.statusCode = status;
          return Promise.resolve();
        });
      },
      (error: Error) => ctx.onerror(error),
    );
  }
}
