/**
 * The composition root of the server: configuration -> adapters -> site -> projector -> app -> listen.
 * `palimpsest serve` and `npm start` both end up here.
 */
import http from 'node:http';
import { loadConfig } from './config';
import type { Config } from './config';
import { openSite } from './bootstrap';
import { createApp } from './app';

export async function serve(config: Config): Promise<{ close(): Promise<void>; server: http.Server }> {
  const started = Date.now();
  const site = await openSite(config);
  await site.projector.start();
  const app = createApp(site);
  const server = http.createServer(app.callback());
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, resolve);
  });
  console.log(`palimpsest serving ${config.siteUrl}/ on ${config.host}:${config.port} (ready in ${Date.now() - started} ms; data in ${config.dataDir})`);
  let closing: Promise<void> | null = null;
  const close = () =>
    (closing ??= (async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await site.close();
    })());
  return { close, server };
}

const isEntryPoint = process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (isEntryPoint) {
  serve(loadConfig())
    .then(({ close }) => {
      for (const signal of ['SIGINT', 'SIGTERM'] as const) {
        process.once(signal, () => {
          close().then(() => process.exit(0), () => process.exit(1));
        });
      }
    })
    .catch((error) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    });
}
