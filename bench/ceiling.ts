/**
 * The ceiling: a bare koa + @koa/router server answering `GET /core/v2/posts` with a fixed body (the bytes of
 * palimpsest's first list page, read from the file named by BODY_FILE). No work per request beyond what koa
 * and the router do, so it bounds what any koa application can serve on this machine.
 */
import fs from 'node:fs';
import http from 'node:http';
import Koa from 'koa';
import Router from '@koa/router';

const body = fs.readFileSync(process.env.BODY_FILE ?? '');
const port = Number(process.env.PORT);

const app = new Koa();
const router = new Router();
router.get('/core/v2/posts', (ctx) => {
  ctx.type = 'application/json; charset=UTF-8';
  ctx.body = body;
});
app.use(router.routes());

const server = http.createServer(app.callback());
server.keepAliveTimeout = 65_000;
server.listen(port, '127.0.0.1', () => console.log(`ceiling serving on 127.0.0.1:${port} (${body.length} bytes)`));
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
}
