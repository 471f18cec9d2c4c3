/**
 * The composition root of the server: configuration -> adapters -> site -> projector -> app -> listen.
 * `palimpsest serve` and `npm start` both end up here.
 */
import http from 'node:http';
import v8 from 'node:v8';
import { ConfigError, loadConfig } from './config';
import type { Config } from './config';
import { openSite } from './bootstrap';
import { createApp } from './app';
import { answerClientErrors } from './http/clientErrors';
import type { Site } from './site';
import { operationalResponse } from './health/endpoints';
import { ensureDefaultCategory } from './resources/terms/operations';
import { logger } from './logger';

export interface ServeOptions {
  /** Run the projector in this process (the default). `serve --no-projector` makes an API node only. */
  projector?: boolean;
}

/**
 * How far V8 lets the old generation grow past what the last full collection kept alive, in percent. V8's own
 * factor follows the allocation rate, up to 4× on a machine with a large heap limit: seeding 100,000 posts over
 * HTTP left 771 MB of old space holding 227 MB of live objects. 50% costs more frequent full collections
 * (marked concurrently) and leaves the heap at about 1.5× what is live (docs/performance.md, "What the figures
 * rest on").
 */
export const HEAP_GROWING_PERCENT = 50;

/**
 * Sets V8's heap growing factor for a long-running server, unless the node command line sets it
 * (`node --heap-growing-percent=N`; 0 is V8's own adaptive factor). Node does not accept it in NODE_OPTIONS.
 */
export function limitHeapGrowth(): void {
  if (heapGrowthOnCommandLine()) return;
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}

/** Back to V8's own heap growing factor, unless the node command line sets one. */
function adaptiveHeapGrowth(): void {
  if (heapGrowthOnCommandLine()) return;
  v8.setFlagsFromString('--heap-growing-percent=0');
}

const heapGrowthOnCommandLine = () => process.execArgv.some((flag) => /^--heap[-_]growing[-_]percent\b/.test(flag));

/**
 * True when starting the projector replays the whole log into the in-memory read model (no snapshot was loaded,
 * or it was refused): no projection has a checkpoint yet.
 */
export async function replaysWholeLogIntoMemory(site: Site, config: Config): Promise<boolean> {
  if (config.redisUrl) return false;
  for (const name of site.projector.names) if ((await site.readModel.checkpoint(name)) !== null) return false;
  return true;
}

/** A server or projector that started, and how to stop it. */
export interface Running {
  close(): Promise<void>;
  server: http.Server;
}

/** Start-up failed for a reason the operator can fix, said in one line (no stack). */
export class StartError extends Error {}

export async function serve(config: Config, options: ServeOptions = {}): Promise<Running> {
  const started = Date.now();
  limitHeapGrowth();
  // Without a shared read model an API node would have nothing to read.
  if (options.projector === false && !config.redisUrl)
    throw new StartError("serve --no-projector needs REDIS_URL: API nodes read the projector's read model from Redis");
  const site = await openSite(config);
  try {
    return await serveSite(site, config, options, started);
  } catch (error) {
    // Whatever was opened is let go of, so the process can end.
    await closeWithin(site.close(), config.shutdownTimeoutMs);
    throw error;
  }
}

async function serveSite(site: Site, config: Config, options: ServeOptions, started: number): Promise<Running> {
  // Every site has "Uncategorized" (id 1); creating it is idempotent and safe from several nodes at once.
  await ensureDefaultCategory(site);
  let replay = '';
  if (options.projector !== false) {
    // Such a replay only adds rows to the heap: with the growth limited, the collector marked the growing heap 10
    // times over at 100,000 posts instead of 4, about a tenth of the start-up's CPU (docs/performance.md,
    // "What the figures rest on"). The limit is back once it is done, before anything is served.
    const wholeReplay = await replaysWholeLogIntoMemory(site, config);
    if (wholeReplay) adaptiveHeapGrowth();
    const replayStarted = Date.now();
    try {
      await site.startProjector({ deliverWebhooks: true });
    } finally {
      if (wholeReplay) limitHeapGrowth();
    }
    // The rebuild's own duration, apart from opening the site and listening (the bench's rebuild rate).
    if (wholeReplay) replay = `, ${Date.now() - replayStarted} ms of it replaying the whole log`;
  }
  const app = createApp(site);
  const server = await listen(config, app.callback());
  const role = options.projector === false ? 'API node without projector; ' : '';
  logger.info(
    `palimpsest serving ${config.siteUrl}/ on ${config.host}:${config.port} (${role}ready in ${Date.now() - started} ms${replay}; data in ${config.dataDir})`,
  );
  return { close: closer(server, site), server };
}

/** Waits for `closing` for at most `ms`; a close that fails or takes longer is reported, not thrown. */
async function closeWithin(closing: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), ms);
  });
  try {
    if ((await Promise.race([closing, late])) === 'late')
      logger.error(`palimpsest: closing did not finish within ${ms} ms`);
  } catch (error) {
    logger.error({ err: error }, 'palimpsest: closing failed');
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `palimpsest projector`: the projector alone. With Redis it competes for the lease and stands by while another
 * process holds it. It listens on PORT for /healthz, /readyz and /metrics only.
 */
export async function runProjector(config: Config): Promise<Running> {
  limitHeapGrowth();
  // Without a shared read model the projector would project into its own memory, for nobody.
  if (!config.redisUrl)
    throw new StartError(
      'projector needs REDIS_URL: it applies the log to the Redis read model the API nodes read; without Redis, `serve` runs the projector in the server itself',
    );
  const site = await openSite(config);
  // Listening before the start: a start may rebuild a projection for a long time, and /healthz and /metrics (the
  // rebuild's progress) must answer meanwhile.
  let server: http.Server;
  try {
    server = await listen(config, operationalListener(site));
  } catch (error) {
    await closeWithin(site.close(), config.shutdownTimeoutMs);
    throw error;
  }
  try {
    await site.startProjector({ deliverWebhooks: true });
  } catch (error) {
    server.close();
    await closeWithin(site.close(), config.shutdownTimeoutMs);
    throw error;
  }
  logger.info(`palimpsest projector running (health and metrics on ${config.host}:${config.port})`);
  return { close: closer(server, site), server };
}

/** The projector's HTTP answers: /healthz, /readyz and /metrics only. */
function operationalListener(site: Site): http.RequestListener {
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    operationalResponse(site, req.method ?? 'GET', path)
      .then((answer) => {
        const { status, type, body } = answer ?? { status: 404, type: 'text/plain', body: 'not found\n' };
        res.writeHead(status, { 'Content-Type': type });
        res.end(req.method === 'HEAD' ? undefined : body);
      })
      .catch((error) => {
        res.writeHead(500, { 'Content-Type': 'text/plain' });
        res.end(`${error instanceof Error ? error.message : String(error)}\n`);
      });
  };
}

async function listen(config: Config, handler: http.RequestListener): Promise<http.Server> {
  const server = http.createServer(handler);
  server.keepAliveTimeout = 65_000;
  answerClientErrors(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(listenFailure(error, config)));
    server.listen(config.port, config.host, resolve);
  });
  return server;
}

/** Why the server could not listen, in one line that says what to change. */
export function listenFailure(error: NodeJS.ErrnoException, config: Pick<Config, 'host' | 'port'>): Error {
  const where = `${config.host}:${config.port}`;
  switch (error.code) {
    case 'EADDRINUSE':
      return new StartError(
        `cannot listen on ${where}: the port is already in use (EADDRINUSE); stop what listens there or set PORT to a free port`,
      );
    case 'EACCES':
      return new StartError(
        `cannot listen on ${where}: not allowed (EACCES); ports below 1024 need privileges, set PORT to a higher one`,
      );
    case 'EADDRNOTAVAIL':
      return new StartError(
        `cannot listen on ${where}: ${config.host} is not an address of this machine (EADDRNOTAVAIL); set HOST`,
      );
    default:
      return new StartError(`cannot listen on ${where}: ${error.message}`);
  }
}

function closer(server: http.Server, site: Site): () => Promise<void> {
  let closing: Promise<void> | null = null;
  return () =>
    (closing ??= (async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await site.close();
    })());
}

/**
 * Runs what `start` starts until SIGINT or SIGTERM, then closes it: resolves with the exit code (0 for a clean stop,
 * 1 when the start or the close failed). The handlers are installed before the start, not after: a stop sent as soon
 * as the ready line is printed (a supervisor, the bench) once found no handler and killed the process, so the
 * in-memory read model's snapshot was never written. A stop during start-up closes once started. Whatever the state
 * (a start that waits on an unreachable dependency, a close that does), the process exits `shutdownTimeoutMs` after
 * the first signal; a second signal ends it at once.
 */
export function runUntilStopped(start: () => Promise<Running>, shutdownTimeoutMs: number): Promise<number> {
  return new Promise<number>((resolve) => {
    let stopping = false;
    // Assigned below, once the handlers are in: a signal is handled on the event loop, after this function returns.
    let started: Promise<Running>;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) {
        logger.warn(`palimpsest: ${signal} again, exiting at once`);
        process.exit(1);
      }
      stopping = true;
      const hard = setTimeout(() => {
        logger.error(
          `palimpsest: did not stop within ${shutdownTimeoutMs} ms of ${signal} (SHUTDOWN_TIMEOUT_MS); exiting`,
        );
        process.exit(1);
      }, shutdownTimeoutMs);
      started
        .then(({ close }) => close())
        .then(
          () => resolve(0),
          (error: unknown) => {
            logger.error({ err: error }, 'palimpsest: closing failed');
            resolve(1);
          },
        )
        .finally(() => clearTimeout(hard));
    };
    // In before start() says or opens anything: a signal arriving without a listener would end the process at once.
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    started = start();
    started.catch((error: unknown) => {
      logger.fatal(`palimpsest: ${startFailure(error)}`);
      resolve(1);
    });
  });
}

/** A failed start in one line for a reason the operator can fix, with the stack otherwise. */
function startFailure(error: unknown): string {
  if (error instanceof StartError || error instanceof ConfigError) return error.message;
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

const isEntryPoint = process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (isEntryPoint) {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    console.error(`palimpsest: ${startFailure(error)}`);
    process.exit(2);
  }
  // Exits explicitly: a failed start may leave connections that would keep the process alive.
  void runUntilStopped(() => serve(config), config.shutdownTimeoutMs).then((code) => process.exit(code));
}
